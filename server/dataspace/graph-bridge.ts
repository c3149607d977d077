import { createHmac } from "node:crypto";
import { sameSecret } from "../config/same-secret";
import { termsOfAsset, type Disclosure } from "../dataspace-protocol";
import { release } from "./release";
import { agreementOf, record, type DataspaceRuntime } from "./runtime";
import { isNotFound } from "./upstream-http";

/**
 * The graph bridge (decision 0065): where a provider's data plane reads the data of an asset the hub
 * registered (`HttpData`, `baseUrl` = `<public URL>/internal/graph-bridge/assets/{context}/{asset}`).
 * A real EDC provider data plane GETs that address with the address's `authKey`/`authCode` as a
 * header; the hub gives each asset's data address its own code (an HMAC of the server's secret over
 * the participant context and the asset) and compares it in constant time. What it answers is
 * released at the source by release.ts (`releasedAnswer`, which the embedded data plane answers too),
 * drawn from the asset's datasets under the permit (decision 0096), by the asset's terms as the connector holds them now: an aggregate asset gives k-anonymous counts; a pseudonymised asset gives records
 * pseudonymised per permit, and only for a contract agreement (`Edc-Contract-Agreement-Id`, the header
 * Tractus-X's "provision additional headers" extension adds) that rests on a data permit recorded
 * here and ACTIVE now: never person-level records. Every answer, refusals included, is audited.
 */

export const GRAPH_BRIDGE_PATH = "/internal/graph-bridge";
/** the header the data address names (`authKey`) for its code (`authCode`) */
export const BRIDGE_KEY_HEADER = "X-Graph-Bridge-Key";

/** the code of one asset's data address: secret per asset, derived from the server's secret */
export function bridgeCodeFor(secret: string, participantId: string, assetId: string): string {
  return createHmac("sha256", secret)
    .update(`graph-bridge\n${participantId}\n${assetId}`)
    .digest("base64url");
}

/** the data address of an asset the hub registers: HttpData at the bridge, with the asset's code */
export function bridgeAddressFor(
  rt: Pick<DataspaceRuntime, "graphBridgeUrl" | "releaseSecret">,
  participantId: string,
  assetId: string,
): Record<string, unknown> {
  return {
    "@type": "DataAddress",
    type: "HttpData",
    baseUrl: `${rt.graphBridgeUrl}/assets/${encodeURIComponent(participantId)}/${encodeURIComponent(assetId)}`,
    authKey: BRIDGE_KEY_HEADER,
    authCode: bridgeCodeFor(rt.releaseSecret, participantId, assetId),
  };
}

export interface BridgeRequest {
  method: string;
  /** the path below the server's origin, query string included */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface BridgeAnswer {
  status: number;
  body: Record<string, unknown>;
  /**
   * refused before the caller showed an asset's code (405, 401): no entry here, where the target would
   * be the caller's text; the server notes it as a refused request, coalesced (server/audit/access-log.ts)
   */
  anonymous?: true;
}

const header = (h: BridgeRequest["headers"], name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

/** `{context}/{asset}` of `/internal/graph-bridge/assets/{context}/{asset}`, or undefined */
function assetOfPath(url: string): { participantId: string; assetId: string } | undefined {
  const path = url.split("?")[0];
  const prefix = `${GRAPH_BRIDGE_PATH}/assets/`;
  if (!path.startsWith(prefix)) return undefined;
  const parts = path.slice(prefix.length).split("/");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  try {
    return { participantId: decodeURIComponent(parts[0]), assetId: decodeURIComponent(parts[1]) };
  } catch {
    return undefined;
  }
}

/**
 * the ACTIVE permit an agreement of the asset rests on, as recorded when the hub asked for the contract,
 * in a data form that allows `disclosure` (a permit for anonymised data releases no pseudonymised records)
 */
async function activePermitOf(
  rt: DataspaceRuntime,
  assetId: string,
  agreementId: string,
  disclosure: Disclosure,
): Promise<string | undefined> {
  for (const row of await rt.contractPermits.ofAsset(assetId)) {
    if ((await agreementOf(rt, row)) !== agreementId) continue;
    return (await rt.permits?.stateOf(row.permitId, disclosure)) === "ACTIVE" ? row.permitId : undefined;
  }
  return undefined;
}

export const BRIDGE_ERRORS = {
  notFound: "Not found",
  method: "Method not allowed: the graph bridge answers GET only",
  key: "The graph bridge needs the code of this asset's data address",
  unknownAsset: "The asset is not known to the connector",
  upstream: "Failed to read the asset from the connector",
  noSource: "The graph bridge has no data source",
  permit:
    "The graph bridge releases records of this asset only for a contract agreement backed by a valid data permit",
};

/** the bridge's answer to one request (the server writes it as JSON, `Cache-Control: no-store`) */
export async function answerGraphBridge(rt: DataspaceRuntime, req: BridgeRequest): Promise<BridgeAnswer> {
  const target = assetOfPath(req.url);
  if (!target) return { status: 404, body: { error: BRIDGE_ERRORS.notFound } };
  const { participantId, assetId } = target;
  if (req.method !== "GET" && req.method !== "HEAD")
    return { status: 405, body: { error: BRIDGE_ERRORS.method }, anonymous: true };
  const code = bridgeCodeFor(rt.releaseSecret, participantId, assetId);
  if (!sameSecret(header(req.headers, BRIDGE_KEY_HEADER) ?? "", code))
    return { status: 401, body: { error: BRIDGE_ERRORS.key }, anonymous: true };
  return releasedAnswer(rt, participantId, assetId, header(req.headers, "Edc-Contract-Agreement-Id"));
}

/**
 * What a provider data plane delivers for an asset of `participantId` under an agreement, released at
 * the source: the bridge's answer once the caller has shown the asset's code, and the embedded data
 * plane's (`Dataspace.releasedAnswer`, decision 0096), which fails its transfer on any other status
 * than 200 as a real one fails on the bridge's refusal. The records are the providing holder's own from
 * the datasets the asset's terms name and, under a permit, only those the permit names too; without a
 * permit an aggregate asset counts over its own datasets, a pseudonymised one is refused (403).
 */
export async function releasedAnswer(
  rt: DataspaceRuntime,
  participantId: string,
  assetId: string,
  agreementId: string | undefined,
): Promise<BridgeAnswer> {
  /** every answer is audited: what was released, or why nothing was */
  const audited = (outcome: "success" | "failure", what: string) =>
    record(rt, {
      action: "graph-bridge.read",
      actor: "data plane",
      target: `${participantId}: ${assetId} (${what})`,
      outcome,
    });
  const refuse = async (status: number, error: string, why: string): Promise<BridgeAnswer> => {
    await audited("failure", why);
    return { status, body: { error } };
  };
  let asset: Record<string, unknown>;
  try {
    asset = await rt.connector.getAsset(participantId, assetId);
  } catch (e) {
    return isNotFound(e)
      ? refuse(404, BRIDGE_ERRORS.unknownAsset, "unknown asset")
      : refuse(502, BRIDGE_ERRORS.upstream, "connector failed");
  }
  if (!rt.bridgeSource) return refuse(503, BRIDGE_ERRORS.noSource, "no data source");
  const terms = termsOfAsset(asset, assetId);
  const permitId = agreementId ? await activePermitOf(rt, assetId, agreementId, terms.disclosure) : undefined;
  const aggregate = terms.disclosure === "aggregate";
  if (!aggregate && !permitId)
    return refuse(403, BRIDGE_ERRORS.permit, agreementId ? "no valid permit" : "no agreement");
  const datasets =
    permitId && rt.permits ? await rt.permits.namedIn(permitId, terms.datasets) : terms.datasets;
  const records = await rt.bridgeSource(assetId, { holder: participantId, datasets, permitId });
  const data = release(records, terms.disclosure, rt.releaseSecret, permitId ?? "");
  await audited(
    "success",
    aggregate ? "aggregate" : `pseudonymised under ${permitId}, agreement ${agreementId}`,
  );
  return { status: 200, body: data };
}
