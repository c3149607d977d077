import { randomUUID } from "node:crypto";
import { COMPACT_CONTEXT, DSP_VERSION, DSPACE_CONTEXT } from "../dataspace-protocol";
import { bearerAuthenticator } from "./auth";
import { ctxKey, DSP_PATH, dspAddressOf, type LocalContext } from "./context";
import { fieldOf } from "./query";
import { badRequest, HttpError, notFound, unauthorized, type RouteHandler, type Router } from "./http";
import type {
  AssetRecord,
  ContractDefinitionRecord,
  Json,
  ParticipantRecord,
  PolicyDefinitionRecord,
} from "./models";

/**
 * The provider side of DSP catalogues: which assets a contract definition offers, the offer ids
 * (EDC's `base64(definition):base64(asset):base64(uuid)`), and the DCAT catalogue with
 * `odrl:hasPolicy` offers served at `<dsp address>/catalog/request`.
 */

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const unb64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

export function encodeOfferId(definitionId: string, assetId: string): string {
  return [definitionId, assetId, randomUUID()].map(b64).join(":");
}

export function decodeOfferId(offerId: string): { definitionId: string; assetId: string } | undefined {
  const parts = offerId.split(":");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9+/]+={0,2}$/.test(p))) return undefined;
  const [definitionId, assetId] = parts.map(unb64);
  if (!definitionId || !assetId || b64(definitionId) !== parts[0] || b64(assetId) !== parts[1])
    return undefined;
  return { definitionId, assetId };
}

/** Does the definition's asset selector (all criteria; empty = every asset) select this asset? */
export function selects(def: ContractDefinitionRecord, asset: AssetRecord): boolean {
  return def.assetsSelector.every((c) => {
    const left = c.operandLeft.replace("https://w3id.org/edc/v0.0.1/ns/", "");
    const value = fieldOf(asset, left);
    if (c.operator === "=") return value === c.operandRight;
    if (c.operator === "in") return Array.isArray(c.operandRight) && c.operandRight.includes(value);
    return false;
  });
}

/** the policy of a definition's contract policy, as the provider's store holds it (none: an empty one) */
export const contractPolicyOf = (ctx: LocalContext, owner: string, def: ContractDefinitionRecord) =>
  ctx.store.get<PolicyDefinitionRecord>("policies", ctxKey(owner, def.contractPolicyId))?.policy ?? {};

/** The ODRL offer of a policy for an asset, as the catalogue shows it. */
export function offerOf(provider: ParticipantRecord, policy: Json, assetId: string, offerId: string): Json {
  return {
    "@id": offerId,
    "@type": "odrl:Offer",
    "odrl:assigner": provider.identity,
    "odrl:target": assetId,
    "odrl:permission": policy.permission ?? [],
    "odrl:prohibition": policy.prohibition ?? [],
    "odrl:obligation": policy.obligation ?? [],
  };
}

/** What a provider's catalogue offers, as its store holds it: read once per version of the store. */
interface CatalogShape {
  version: number;
  identity: string;
  datasets: { asset: AssetRecord; offers: { definition: ContractDefinitionRecord; policy: Json }[] }[];
}

const shapes = new WeakMap<LocalContext, Map<string, CatalogShape>>();

/**
 * The assets a provider offers and under which definitions and policies: the store's documents, read
 * again only after a write anywhere in the dataspace (the store's version, shared by its threads), so
 * that a catalogue request does not read and parse every asset, definition and policy each time.
 */
function shapeOf(ctx: LocalContext, provider: ParticipantRecord): CatalogShape {
  const version = ctx.store.version();
  let byProvider = shapes.get(ctx);
  if (!byProvider) shapes.set(ctx, (byProvider = new Map()));
  const kept = byProvider.get(provider["@id"]);
  if (kept && kept.version === version && kept.identity === provider.identity) return kept;
  const definitions = ctx.store.list<ContractDefinitionRecord>("contractdefinitions", provider["@id"]);
  const shape: CatalogShape = {
    version,
    identity: provider.identity,
    datasets: ctx.store
      .list<AssetRecord>("assets", provider["@id"])
      .map((asset) => ({
        asset,
        offers: definitions
          .filter((d) => selects(d, asset))
          .map((definition) => ({ definition, policy: contractPolicyOf(ctx, provider["@id"], definition) })),
      }))
      .filter((d) => d.offers.length > 0),
  };
  byProvider.set(provider["@id"], shape);
  return shape;
}

/**
 * The DCAT catalogue of a provider context: every asset that a contract definition selects, with one
 * offer per definition under a fresh offer id (the parts read from the store are shared between
 * answers and never changed: the answer is only serialised).
 */
export function buildCatalog(ctx: LocalContext, provider: ParticipantRecord): Json {
  const endpointURL = dspAddressOf(ctx, provider["@id"]);
  const dataService = {
    "@id": `${provider["@id"]}-dsp`,
    "@type": "dcat:DataService",
    "dcat:endpointDescription": "dspace:connector",
    "dcat:endpointURL": endpointURL,
  };
  const datasets = shapeOf(ctx, provider).datasets.map(({ asset, offers }) => ({
    "@id": asset["@id"],
    "@type": "dcat:Dataset",
    "odrl:hasPolicy": offers.map(({ definition, policy }) =>
      offerOf(provider, policy, asset["@id"], encodeOfferId(definition["@id"], asset["@id"])),
    ),
    "dcat:distribution": [
      {
        "@type": "dcat:Distribution",
        "dct:format": { "@id": "HttpData-PULL" },
        "dcat:accessService": dataService,
      },
    ],
    ...asset.properties,
    id: asset["@id"],
  }));
  return {
    "@context": [COMPACT_CONTEXT, DSPACE_CONTEXT],
    "@id": randomUUID(),
    "@type": "dcat:Catalog",
    "dspace:participantId": provider.identity,
    "dcat:dataset": datasets,
    "dcat:service": [dataService],
    "dct:description": `Catalogue of ${provider.identity}, served by the local development dataspace`,
  };
}

/**
 * A provider context's catalogue as its DSP endpoint answers it (404 unless active). The management API
 * asks it in-process, with the provider record it found: no loopback HTTP call of the connector to itself.
 */
export function catalogOfProvider(
  ctx: LocalContext,
  providerContextId: string,
  provider = ctx.store.get<ParticipantRecord>("participants", providerContextId),
): Json {
  if (!provider || provider.state !== "ACTIVATED")
    throw notFound(`no active participant ${providerContextId} at this address`);
  return buildCatalog(ctx, provider);
}

/**
 * A provider context's DSP 2025-1 endpoints, as EDC 0.15.1's DspRequestHandlerImpl answers them: without a
 * token 401 "Unauthorized.", with one this runtime's token endpoint did not sign 401 "Unauthorized", and every
 * refusal as DSP's error message of its process (`code` the status, `reason` the messages). Only the
 * catalogue (`POST <dsp address>/catalog/request`) is served: this connector negotiates and transfers between
 * its own contexts in-process, so a negotiation or transfer message of another connector is 501 (decision 0126).
 */
export function registerDsp(router: Router, ctx: LocalContext): void {
  const bearer = bearerAuthenticator(ctx);
  const route = (method: string, path: string, errorType: string, handler: RouteHandler) =>
    router.add(
      method,
      `${DSP_PATH}/:context/${DSP_VERSION}/${path}`,
      async (req) => {
        try {
          if (!req.headers.authorization) throw unauthorized("Unauthorized.");
          await bearer(req).catch(() => {
            throw unauthorized("Unauthorized");
          });
          return await handler(req);
        } catch (e) {
          if (!(e instanceof HttpError)) throw e;
          const error = { "@type": errorType, code: String(e.status), reason: [e.message] };
          return { status: e.status, body: { "@context": [DSPACE_CONTEXT], ...error } };
        }
      },
      { authenticated: false },
    );
  route("POST", "catalog/request", "CatalogError", (req) => {
    const type = ((req.body ?? {}) as Json)["@type"];
    if (type !== undefined && type !== "CatalogRequestMessage" && type !== "dspace:CatalogRequestMessage") {
      throw badRequest("expected a CatalogRequestMessage", "@type");
    }
    return { body: catalogOfProvider(ctx, req.params.context) };
  });
  const inProcess = () => {
    throw new HttpError(
      501,
      "This development connector negotiates and transfers only between its own contexts",
    );
  };
  for (const [kind, errorType] of [
    ["negotiations", "ContractNegotiationError"],
    ["transfers", "TransferError"],
  ]) {
    route("POST", `${kind}/request`, errorType, inProcess);
    route("GET", `${kind}/:pid`, errorType, inProcess);
  }
}
