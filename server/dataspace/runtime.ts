import { setMaxListeners } from "node:events";
import type { AuditInput } from "../audit/model";
import type { ConnectorClient } from "./connector-client";
import type { ReadCache } from "./read-cache";
import type { DemoRecords, DemoTransferStore } from "./demo-records";
import type { IdentityHubClient } from "./identity-hub-client";
import type { IssuerClient } from "./issuer-client";
import type { ContractPermit, ContractPermits, PermitRegister } from "./permits";
import type { CutOffs } from "./cut-off-store";
import type { RecordSource } from "./graph-data-source";
import type { TenantManagerClient } from "./tenant-manager-client";

/**
 * A DID's entry in the operator's participant directory (undefined: none): its DSP catalogue address (null:
 * none given) and the hosts its data plane may be on besides its DSP host (decision 0106)
 */
export type DirectoryLookup = (
  did: string,
) => Promise<{ catalogueUrl: string | null; dataPlaneHosts: readonly string[] } | undefined>;

/**
 * What the dataspace service functions share: the upstream clients, the demonstration records
 * and the settings that shape fallbacks. Built once by createDataspace.
 */
export interface DataspaceRuntime {
  connector: ConnectorClient;
  /** the read cache every upstream client reads through (cached-clients.ts); clients rebuilt on a restart keep it */
  readCache: ReadCache;
  tenantManager: TenantManagerClient | undefined;
  issuer: IssuerClient | undefined;
  identityHub: IdentityHubClient | undefined;
  /** DID of the issuer that credential requests go to */
  issuerDid: string | undefined;
  demo: DemoRecords;
  demoTransfers: DemoTransferStore;
  /** DEMO_RECORDS: merge demonstration records into lists and fall back to them */
  demoRecords: boolean;
  /** UPSTREAM_TIMEOUT_MS: the time-out of each upstream call, and the budget of a whole list */
  timeoutMs: number;
  /** base URL of the internal graph bridge, the default data address of new assets */
  graphBridgeUrl: string;
  audit: { append(input: AuditInput): Promise<unknown> } | undefined;
  fetch: typeof fetch;
  /**
   * The fetch of pulls from a provider's data plane: its own pool, whose connections reach only the addresses
   * decision 0106 allows (pull-connect.ts); a fetch handed in to createDataspace (tests) replaces it
   */
  pullFetch: typeof fetch;
  /**
   * The access body's data permits (permits.ts), handed in by the container once the access body
   * is built (Dataspace.usePermits). Without one, no contract for health data is started and
   * nothing is pulled: 503.
   */
  permits: PermitRegister | undefined;
  /** which permit each negotiation started here rests on */
  contractPermits: ContractPermits;
  /** the cut-offs of revoked permits at the connector, pending until every transfer has ended (cut-off.ts) */
  cutOffs: CutOffs;
  /** the server's secret that pseudonyms are keyed with (release.ts), with the permit id; and the graph bridge's codes */
  releaseSecret: string;
  /** the records behind an asset, within its scope (graph-bridge.ts `releasedAnswer`); none: the bridge answers 503 */
  bridgeSource?: RecordSource;
  /** the holder of a catalogue dataset, undefined for none of the catalogue's; none: terms are not checked against a catalogue */
  datasetHolder?: (datasetId: string) => Promise<string | undefined>;
  /**
   * Where the own connector serves its participant contexts' DSP, `<this>/<context>/2025-1`, when the hub
   * knows it (the embedded dataspace); undefined for a configured connector (provider-address.ts)
   */
  protocolBaseUrl?: string;
  /**
   * The operator's participant directory by DID (provider-address.ts, the pull's data-plane hosts), handed in
   * by the container (Dataspace.useDirectory); none: a provider is found only as rule 1 of provider-address.ts
   * says, and pulled from only on its DSP host
   */
  directory?: DirectoryLookup;
}

/** A deadline for one operation that makes several upstream calls: the whole answer stays within the time-out. */
export function operationDeadline(rt: DataspaceRuntime): AbortSignal {
  return fanOutSignal(AbortSignal.timeout(rt.timeoutMs));
}

/**
 * An operation's deadline is listened to by each of its upstream calls while it runs — one per
 * participant context for a list, more than Node's default of ten in any dataspace of size — and each
 * call removes its listener when it ends, so the default's "possible memory leak" warning is wrong here.
 */
function fanOutSignal(signal: AbortSignal): AbortSignal {
  setMaxListeners(1000, signal);
  return signal;
}

/**
 * A first stage that took less than this armed no deadline for the second: each upstream call of the
 * second stage has its own time-out, so the operation still ends within the time-out and this much.
 */
export const FIRST_STAGE_UNBOUNDED_MS = 250;

/**
 * The second stage's deadline of a two-stage operation (started at `startedAt`): what is left of its
 * time-out, armed only when the first stage took FIRST_STAGE_UNBOUNDED_MS or more (each upstream call
 * has its own time-out, and `AbortSignal.timeout` keeps a timer for the whole time-out).
 */
export function remainingDeadline(rt: DataspaceRuntime, startedAt: number): AbortSignal | undefined {
  const spent = Date.now() - startedAt;
  return spent < FIRST_STAGE_UNBOUNDED_MS
    ? undefined
    : fanOutSignal(AbortSignal.timeout(Math.max(0, rt.timeoutMs - spent)));
}

export async function record(
  rt: DataspaceRuntime,
  input: Omit<AuditInput, "kind"> & { kind?: string },
): Promise<void> {
  if (!rt.audit) return;
  try {
    await rt.audit.append({ kind: "dataspace", ...input });
  } catch (e) {
    // a success is answered only once its entry is written (a crash loses no acknowledged entry);
    // a failure's entry must not hide the failure the caller is about to answer
    if (input.outcome !== "failure") throw e;
    console.error("[dataspace] audit append failed:", e);
  }
}

/**
 * An upstream write on the audit log either way: on failure the failure's entry, then the error
 * `failed` makes of it; else the success's entry, its target followed by `detail` of the result.
 */
export async function audited<T>(
  rt: DataspaceRuntime,
  entry: { action: string; actor: string; target: string },
  write: () => Promise<T>,
  failed: (e: unknown) => unknown,
  detail?: (result: T) => string,
): Promise<T> {
  let result: T;
  try {
    result = await write();
  } catch (e) {
    await record(rt, { ...entry, outcome: "failure" });
    throw failed(e);
  }
  const target = detail ? `${entry.target} (${detail(result)})` : entry.target;
  await record(rt, { ...entry, target, outcome: "success" });
  return result;
}

/** The call's value or its error, for calls whose failure is tolerated. */
export async function settle<T>(
  p: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The fulfilled value, or null when the call failed (and its failure is tolerated). */
export const orNull = <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);

/**
 * The agreement a recorded negotiation made: as recorded, else as the connector tells it now (then
 * recorded); undefined while it has none.
 */
export async function agreementOf(
  rt: DataspaceRuntime,
  row: ContractPermit,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (row.agreementId) return row.agreementId;
  const n = await orNull(rt.connector.getNegotiation(row.participantId, row.negotiationId, signal));
  const found = n?.contractAgreementId ?? n?.contractId;
  if (typeof found !== "string" || !found) return undefined;
  await rt.contractPermits.setAgreement(row.negotiationId, found);
  return found;
}
