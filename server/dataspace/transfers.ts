import { ApiError, badGateway, forbidden, serviceUnavailable } from "../http/errors";
import { release } from "./release";
import {
  DEFAULT_TRANSFER_TYPE,
  DSP_PROTOCOL,
  MANAGEMENT_CONTEXT,
  TRANSFER_TYPES,
} from "../dataspace-protocol";
import { createKeptByInputs, deepFrozen } from "../http/kept/kept";
import { presentString } from "../http/handler";
import { DEMO_CONTRACT_ID, type DemoRecord } from "./demo-records";
import {
  callerMistake,
  describeUpstream,
  failureMessage,
  liveOrNull,
  notFoundOr502,
  or502,
} from "./failures";
import { FOR_ANONYMISED_DATA_ONLY, NO_PERMIT_REGISTER, type ContractPermit } from "./permits";
import { dataPlaneUrl } from "./address";
import { pullRefusalOf, type PullAddressRefused } from "./pull-connect";
import { mergeById } from "./merge";
import { inCatalogue } from "./negotiations";
import { agreementOf, audited, operationDeadline, record, type DataspaceRuntime } from "./runtime";
import { createUpstreamHttp, isNotFound, isUpstreamError } from "./upstream-http";
import type { ConnectorTransfer, IdResponse } from "./upstream-schemas";
import { z } from "zod";
import { invalidField, missingFields } from "../http/field-errors";

/** Transfer processes (spec section 4, Transfers): list, start (live or demonstration), read, pull data. */

export const TRANSFER_FIELDS_REQUIRED = "participantId, contractId, and counterPartyAddress are required";
const transferUnread = (e: unknown) => notFoundOr502(e, "Transfer not found", "Failed to fetch transfer");
const TRANSFER_MISTAKES = {
  notFound: "The participant context is unknown",
  invalid: "The connector refused the transfer request as invalid",
};

export type TransferRequest = ReturnType<typeof parseTransferRequest>;

export function parseTransferRequest(body: Record<string, unknown>) {
  const participantId = presentString(body.participantId);
  const contractId = presentString(body.contractId);
  const counterPartyAddress = presentString(body.counterPartyAddress);
  if (!participantId || !contractId || !counterPartyAddress)
    throw missingFields({ participantId, contractId, counterPartyAddress }, TRANSFER_FIELDS_REQUIRED);
  const transferType = presentString(body.transferType) ?? DEFAULT_TRANSFER_TYPE;
  if (!(TRANSFER_TYPES as readonly string[]).includes(transferType)) {
    throw invalidField("transferType", `transferType must be one of ${TRANSFER_TYPES.join(", ")}`);
  }
  return {
    participantId,
    contractId,
    counterPartyAddress,
    assetId: typeof body.assetId === "string" ? body.assetId : "",
    transferType,
  };
}

/** The TransferRequest sent to the connector: DSP 2025-1 with an HttpProxy destination (consumer pull). */
export function buildTransferRequest(req: TransferRequest): Record<string, unknown> {
  return {
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "TransferRequest",
    protocol: DSP_PROTOCOL,
    counterPartyAddress: req.counterPartyAddress,
    contractId: req.contractId,
    assetId: req.assetId,
    transferType: req.transferType,
    dataDestination: { "@type": "DataAddress", type: "HttpProxy" },
  };
}

/**
 * The participant's transfers (transfersOf), kept, frozen (read it only), per set of inputs
 * (server/http/kept `createKeptByInputs`).
 */
export async function listTransfers(
  rt: DataspaceRuntime,
  participantId: string,
): Promise<readonly Record<string, unknown>[]> {
  // one upstream call with its own time-out: no deadline armed per request (see remainingDeadline)
  const live = await liveOrNull(
    () => rt.connector.listTransfers(participantId),
    rt.demoRecords,
    "Failed to fetch transfers",
  );
  const created = rt.demoRecords ? await rt.demoTransfers.listShared(participantId) : NONE;
  const bundled = rt.demo.sharedOf(participantId).transfers;
  return keptTransfers(participantId, [live, rt, rt.demoRecords, created, bundled], () =>
    transfersOf(rt, live, created, bundled),
  );
}

/**
 * The list from its inputs: the live records first, then the demonstration transfers created for the
 * participant and the bundle's own (alone when live failed).
 */
function transfersOf(
  rt: DataspaceRuntime,
  live: readonly ConnectorTransfer[] | null,
  created: readonly DemoRecord[],
  bundled: readonly DemoRecord[],
): readonly Record<string, unknown>[] {
  if (!rt.demoRecords) return live ?? [];
  const demo = mergeById(created, bundled);
  return live ? mergeById(live, demo) : demo;
}

const NONE: readonly DemoRecord[] = Object.freeze([]);

// pure: the views import this module for its parsers, and their client bundle must drop it
const keptTransfers = /* @__PURE__ */ createKeptByInputs<readonly Record<string, unknown>[]>();

/**
 * Starts a transfer. A demonstration contract id sends nothing to the connector and answers a
 * demonstration TransferProcess in state REQUESTED; any other id goes to the connector.
 */
export async function startTransfer(
  rt: DataspaceRuntime,
  req: TransferRequest,
  actor = "system",
): Promise<IdResponse | DemoRecord> {
  if (DEMO_CONTRACT_ID.test(req.contractId)) {
    // the store appends the transfer.start entry in the transaction of the insert
    return rt.demoTransfers.create(req, actor);
  }
  const target = `${req.participantId}: ${req.contractId}`;
  // a contract whose data permit has been revoked (or has expired) is cut off: no new transfer under it.
  // The look-up and the start share one deadline: the answer stays within the time-out.
  const deadline = operationDeadline(rt);
  const contract = rt.permits
    ? await permitOfContract(rt, req.participantId, req.contractId, deadline)
    : undefined;
  if (contract) {
    const state = (await rt.permits!.stateOf(contract.permitId, contract.disclosure)) ?? "UNKNOWN";
    if (state !== "ACTIVE") {
      await record(rt, { action: "transfer.start", actor, target, outcome: "failure" });
      throw forbidden(PERMIT_NOT_VALID(contract.permitId, state));
    }
  }
  return audited(
    rt,
    { action: "transfer.start", actor, target },
    () => rt.connector.initiateTransfer(req.participantId, buildTransferRequest(req), deadline),
    // the caller's mistake (a context the connector does not know) is a 4xx, as for assets (0082)
    (e) =>
      callerMistake(e, TRANSFER_MISTAKES) ??
      badGateway(failureMessage(e) ?? "Failed to initiate data transfer"),
    (response) => response["@id"],
  );
}

export async function getTransfer(
  rt: DataspaceRuntime,
  participantId: string,
  id: string,
): Promise<Record<string, unknown>> {
  try {
    return await rt.connector.getTransfer(participantId, id);
  } catch (e) {
    // a shared, frozen record (or the store's own copy), as a kept value: encoded once (server/http/kept encoded.ts)
    return deepFrozen(await demoTransferOr404(rt, participantId, id, e));
  }
}

/**
 * After the connector failed to answer one transfer: its demonstration record when it is the
 * participant's own (the kept lists first, shared and frozen: read them only; then the store), or the
 * spec's 404 or 502; another participant's record answers the same 404 as an unknown id.
 */
async function demoTransferOr404(
  rt: DataspaceRuntime,
  participantId: string,
  id: string,
  e: unknown,
): Promise<DemoRecord> {
  const byId = (r: DemoRecord) => r["@id"] === id;
  const stored = async () => {
    const r = await rt.demoTransfers.get(id);
    return r && r.participantContextId === participantId ? r : undefined;
  };
  const found =
    (await rt.demoTransfers.listShared(participantId)).find(byId) ??
    (rt.demoRecords ? rt.demo.sharedOf(participantId).transfers.find(byId) : undefined) ??
    (await stored());
  if (found) return found;
  throw transferUnread(e);
}

export interface PulledData {
  transferId: string;
  endpoint: string;
  contentType: string;
  data: unknown;
  /** the data permit the data left under */
  permitId: string;
  /** datasets of the contract withdrawn from the catalogue since (0123): `data` holds none of their records */
  withdrawnDatasets?: string[];
}

const MAX_PULL_BYTES = 5_000_000;

export const PERMIT_NOT_VALID = (permitId: string, state: string) =>
  state === FOR_ANONYMISED_DATA_ONLY
    ? `Data permit ${permitId} is ${state}: no pseudonymised records leave under it`
    : `Data permit ${permitId} is ${state}: no further data leaves under it`;

const DATASETS_WITHDRAWN = (contractId: string, datasets: string) =>
  `Every dataset contract ${contractId} covers has been withdrawn from the catalogue (${datasets}): no record of it leaves, nothing was pulled`;

export const ENDPOINT_NOT_PROVIDERS =
  "The endpoint data reference does not point at the provider's own host: nothing was pulled from it";

export const ENDPOINT_ADDRESS_REFUSED =
  "The endpoint data reference leads to an address the hub does not pull from: nothing was pulled from it";

/** why a connection of the pull was refused (pull-connect.ts), for the 502's `detail` */
function addressRefusalDetail(r: PullAddressRefused): string {
  const what = `${r.address}, ${r.kind === "unspecified" ? "an" : "a"} ${r.kind} address`;
  const literal = r.host === r.address;
  const prefix = literal
    ? `the endpoint's address is ${what}`
    : `the endpoint's host ${r.host} resolves to ${what}`;
  switch (r.kind) {
    case "loopback":
      return `${prefix}, which a pull reaches only when the host is written as a loopback address or localhost`;
    case "private":
      return `${prefix} outside PULL_PRIVATE_NETWORKS, which a pull reaches from a name only within those networks`;
    default:
      return `${prefix}, which a pull never connects to`;
  }
}

/**
 * The data permit the contract of a transfer rests on: the one recorded for the negotiation that
 * made the agreement (permits.ts), found by the agreement id the connector gave that negotiation,
 * whatever asset a request names (the agreement names its own).
 */
async function permitOfContract(
  rt: DataspaceRuntime,
  participantId: string,
  contractId: string,
  signal?: AbortSignal,
): Promise<ContractPermit | undefined> {
  for (const row of await rt.contractPermits.of(participantId))
    if ((await agreementOf(rt, row, signal)) === contractId) return row;
  return undefined;
}

/**
 * Pulls the data of a started pull transfer, as its data permit allows (issue 34): the permit the
 * contract rests on must be valid now (a revoked or expired one stops pulls at once, 403); reads
 * the endpoint data reference (EDR) from the consumer's connector, GETs its endpoint with the EDR's
 * authorization token (only on the provider's own host or one its directory entry lists, and only at an
 * address allowed for that host, following no redirect: else 502, decisions 0104 and 0106),
 * and hands on what the asset's terms deliver under the permit (release.ts): k-anonymous aggregates,
 * or records pseudonymised per permit. The provider's data plane released them at the source
 * (graph-bridge.ts); the hub releases them again itself, which changes nothing it had released, so an
 * embedded and a real connector hand on the same. What left, and every pull the permit or the endpoint
 * check refused, is on the audit log (`transfer.pull`, naming the permit), written before the data is handed on.
 * A contract whose datasets were all withdrawn from the catalogue since is refused (410, 0123); one with some
 * left releases those, and the answer names the withdrawn ones (`withdrawnDatasets`).
 */
export async function pullTransferData(
  rt: DataspaceRuntime,
  participantId: string,
  transferId: string,
  actor = "system",
): Promise<PulledData> {
  if (!rt.permits) throw serviceUnavailable(NO_PERMIT_REGISTER);
  let transfer: Record<string, unknown>;
  try {
    transfer = await rt.connector.getTransfer(participantId, transferId);
  } catch (e) {
    throw transferUnread(e);
  }
  const contractId = typeof transfer.contractId === "string" ? transfer.contractId : "";
  const contract = await permitOfContract(rt, participantId, contractId);
  if (!contract) {
    const target = `${participantId}: ${transferId} (contract ${contractId})`;
    await record(rt, { action: "transfer.pull", actor, target, outcome: "refused: no data permit" });
    throw forbidden(
      `No data permit of the health data access body backs contract ${contractId}: nothing is pulled under it`,
    );
  }
  const { permitId, disclosure } = contract;
  const target = `${participantId}: ${transferId} (data permit ${permitId}, ${disclosure})`;
  const state = (await rt.permits.stateOf(permitId, disclosure)) ?? "UNKNOWN";
  if (state !== "ACTIVE") {
    await record(rt, { action: "transfer.pull", actor, target, outcome: `refused: permit ${state}` });
    throw forbidden(PERMIT_NOT_VALID(permitId, state));
  }
  // of the contract's datasets its permit names, those withdrawn from the catalogue since release no record (0123): said
  const covered = await rt.permits.namedIn(permitId, contract.datasets);
  const held = await inCatalogue(rt, contract.assetId, covered);
  const withdrawn = covered.filter((d) => !held.includes(d));
  const gone = withdrawn.join(", ");
  if (gone && !held.length) {
    const outcome = `refused: datasets withdrawn (${gone})`;
    await record(rt, { action: "transfer.pull", actor, target, outcome });
    throw new ApiError(410, DATASETS_WITHDRAWN(contractId, gone));
  }
  let edr;
  try {
    edr = await rt.connector.getEndpointDataReference(participantId, transferId);
  } catch (e) {
    if (isNotFound(e))
      throw new ApiError(409, "No endpoint data reference yet: the transfer has not started");
    throw badGateway("Failed to read the endpoint data reference", describeUpstream(e));
  }
  // the provider names the endpoint: GET only its own host, as the negotiation of the contract addressed it (0104)
  const negotiation = await or502(
    () => rt.connector.getNegotiation(participantId, contract.negotiationId),
    "Failed to read the negotiation of the transfer's contract",
  );
  // or a host the operator's directory lists for the provider, by the DID the negotiation names it with (0106)
  const provider = negotiation.counterPartyId;
  const listed = (provider && (await rt.directory?.(provider))?.dataPlaneHosts) || [];
  const address = dataPlaneUrl(edr.endpoint, negotiation.counterPartyAddress, listed);
  if ("refused" in address) {
    const { outcome, detail } = address.refused;
    await record(rt, { action: "transfer.pull", actor, target, outcome: `refused: ${outcome}` });
    throw badGateway(ENDPOINT_NOT_PROVIDERS, detail);
  }
  const plane = createUpstreamHttp({
    name: "data plane",
    baseUrl: address.url.href,
    timeoutMs: rt.timeoutMs,
    fetch: rt.pullFetch,
  });
  let data: unknown;
  try {
    data = await plane.request("GET", "", {
      schema: z
        .unknown()
        .refine((v) => JSON.stringify(v ?? null).length <= MAX_PULL_BYTES, "payload too large"),
      headers: { Authorization: edr.authorization },
    });
  } catch (e) {
    // the address connected to is checked as the connection is made, before any byte is sent (0106)
    const refusal = pullRefusalOf(e);
    if (refusal) {
      const outcome = `refused: endpoint address ${refusal.kind}`;
      await record(rt, { action: "transfer.pull", actor, target, outcome });
      throw badGateway(ENDPOINT_ADDRESS_REFUSED, addressRefusalDetail(refusal));
    }
    await record(rt, { action: "transfer.pull", actor, target, outcome: "failure" });
    if (isUpstreamError(e) && e.status === 401)
      throw badGateway("The data plane refused the endpoint data reference", describeUpstream(e));
    throw badGateway("Failed to pull the transferred data", describeUpstream(e));
  }
  const released = release(data, disclosure, rt.releaseSecret, permitId);
  // on record before it is handed on: no data leaves under a permit without its entry
  const pulled = gone ? `${target}; withdrawn: ${gone}` : target;
  await record(rt, { action: "transfer.pull", actor, target: pulled, outcome: "success" });
  const answer = {
    transferId,
    endpoint: edr.endpoint,
    contentType: "application/json",
    data: released,
    permitId,
  };
  return gone ? { ...answer, withdrawnDatasets: withdrawn } : answer;
}
