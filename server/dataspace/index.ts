import type { AppendOptions } from "../audit/log";
import type { AuditInput } from "../audit/model";
import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import type { Db } from "../storage/database";
import type { Relational } from "../storage/relational";
import { openSqliteRelational } from "../storage/relational/sqlite";
import type { DataspaceEndpoints } from "../dataspace-protocol";
import { actsForAnyContext, decideActing, ownContextId } from "./acting";
import * as assets from "./assets";
import { summariseCatalog } from "./catalog";
import * as credentials from "./credentials";
import { bundledDemoRecords, createDemoTransferStore } from "./demo-records";
import * as negotiations from "./negotiations";
import { createContractPermits, type PermitRegister } from "./permits";
import { createCutOffs, cutOffPermit, retryDueCutOffs, RETRY_BASE_MS, type CutOffOutcome } from "./cut-off";
import { ATTEMPT_LEASE_MS } from "./cut-off-store";
import { answerGraphBridge, releasedAnswer } from "./graph-bridge";
import type { RecordSource } from "./graph-data-source";
import { getOrCreateSecret } from "../storage/secrets";
import * as participants from "./participants";
import { createPooledFetch } from "./pooled-fetch";
import { pullConnector } from "./pull-connect";
import type { LookupFunction } from "node:net";
import { createReadCache, EMBEDDED_READ_CACHE_MS } from "./read-cache";
import type { DataspaceRuntime, DirectoryLookup } from "./runtime";
import { serviceEndpoints, upstreamClients } from "./reconnect";
import * as tasks from "./tasks";
import * as transfers from "./transfers";

/*
 * Other capabilities import server/dataspace through this file, or the leaf helpers that lint
 * lists beside it (docs/decisions/0015).
 */
export { EVERY_PARTICIPANT, negotiationsAcross, type HeldNegotiation } from "./across";
export { actsForAnyContext, NO_CONTEXT, NOT_YOUR_CONTEXT, ownContextId, readsAnyContext } from "./acting";
export { didOfParticipant, type AssetOffer } from "./assets";
export {
  reconnectClients,
  serviceEndpoints,
  type DataspaceServiceName,
  type ServiceEndpoints,
} from "./reconnect";
export { CREDENTIAL_NOT_FOUND, issuanceStartedSchema } from "./credentials";
export { credentialDefinitionSchema } from "./upstream-schemas";
export { createReadCache } from "./read-cache";
export type { ParticipantProfile, Tenant as TenantRecord } from "./upstream-schemas";

/**
 * The dataspace capability: participants, assets, negotiations, transfers, tasks and
 * credentials over the connector, tenant manager, issuer and identity hub. Built once by
 * createDataspace, which speaks HTTP to whatever connector it is given: the configured one, or
 * the embedded local dataspace that the container started (server/start-dataspace.ts), exactly
 * as to a production connector. It never starts a server itself.
 */

/** A running embedded dataspace (server/local-dataspace), handed in by the container; closed with the dataspace. */
export interface EmbeddedConnector extends DataspaceEndpoints {
  /** counts every change the embedded dataspace makes itself (read-cache.ts reuses answers only while it stands) */
  changeVersion?(): number;

  close(): Promise<void>;
}

export interface DataspaceDeps {
  db: Db;
  /** the relational store of the demonstration transfers (default: the embedded store on `db`) */
  rel?: Relational;
  audit?: { append(input: AuditInput, opts?: AppendOptions): Promise<unknown> };
  /** the embedded dataspace to speak to when no connector is configured */
  embedded?: EmbeddedConnector;
  /** every upstream call's fetch, the pulls' too (default: pooled; the pulls' pool checks the addresses it reaches) */
  fetch?: typeof fetch;
  /** how the pulls' pool resolves names (default: the system's): a test seam for decision 0106 */
  pullLookup?: LookupFunction;
  /**
   * How long connector, tenant-manager, issuer and identity-hub reads are reused (read-cache.ts).
   * Default: with the embedded dataspace, EMBEDDED_READ_CACHE_MS (its change counter invalidates at
   * once); with a configured connector 0 (identical in-flight reads coalesce; writes through this
   * server invalidate).
   */
  readCacheMs?: number;
  /** the access body's data permits (else handed in later by usePermits; none: 503 on contracts and pulls) */
  permits?: PermitRegister;
  /** the records behind an asset, within its scope (the knowledge graph's; none: the bridge answers 503) */
  bridgeSource?: RecordSource;
  /** the holder of a catalogue dataset (the knowledge graph's; none: an asset's datasets are not checked) */
  datasetHolder?: (datasetId: string) => Promise<string | undefined>;
  /** how long each attempt of a permit cut-off holds it (default: ATTEMPT_LEASE_MS, or two time-outs if longer) */
  cutOffLeaseMs?: number;
}

export type Dataspace = Awaited<ReturnType<typeof createDataspace>>;

export async function createDataspace(config: Config, deps: DataspaceDeps) {
  const timeoutMs = config.upstreamTimeoutMs;
  // keep-alive pooled connections to the upstreams, unless a fetch is handed in
  const pool = deps.fetch ? undefined : createPooledFetch();
  const doFetch = deps.fetch ?? pool!.fetch;
  // the pulls from providers' data planes: a pool of their own that connects only where decision 0106 allows
  const pullPool = deps.fetch
    ? undefined
    : createPooledFetch({
        connections: 8,
        connect: pullConnector({ privateNetworks: config.pullPrivateNetworks, lookup: deps.pullLookup }),
      });

  const local = config.connector ? undefined : deps.embedded;
  // the configured connector, else the embedded dataspace
  const endpoints = serviceEndpoints(config, local);
  if (!endpoints)
    throw new Error("No connector configured (CONNECTOR_MANAGEMENT_URL) and no embedded dataspace given");

  const readCache = createReadCache({
    name: "connector",
    ttlMs: deps.readCacheMs ?? (local ? EMBEDDED_READ_CACHE_MS : 0),
    timeoutMs,
    version: local?.changeVersion ? () => local!.changeVersion!() : undefined,
  });
  const clients = upstreamClients(endpoints, readCache, timeoutMs, doFetch);
  const rel = deps.rel ?? openSqliteRelational(deps.db);
  const rt: DataspaceRuntime = {
    ...clients,
    readCache,
    issuerDid: endpoints.issuerDid,
    demo: bundledDemoRecords(),
    demoTransfers: await createDemoTransferStore(rel, deps.audit),
    demoRecords: config.demoRecords,
    timeoutMs,
    graphBridgeUrl: `${config.publicUrl}/internal/graph-bridge`,
    audit: deps.audit,
    fetch: doFetch,
    pullFetch: deps.fetch ?? pullPool!.fetch,
    permits: deps.permits,
    contractPermits: await createContractPermits(rel),
    // an attempt starts a call only with one time-out left in its lease (cut-off.ts): room for one at least
    cutOffs: await createCutOffs(rel, deps.cutOffLeaseMs ?? Math.max(ATTEMPT_LEASE_MS, 2 * timeoutMs)),
    releaseSecret: await getOrCreateSecret(rel, "dataspace-release-secret"),
    bridgeSource: deps.bridgeSource,
    datasetHolder: deps.datasetHolder,
    // the embedded dataspace serves its contexts' DSP here (provider-address.ts); a configured one: unknown
    protocolBaseUrl: local?.protocolBaseUrl,
  };

  // pending cut-offs of revoked permits are retried on every instance until each transfer has ended
  let retrying: Promise<unknown> | undefined;
  const retryCutOffs = () => {
    retrying ??= retryDueCutOffs(rt).finally(() => (retrying = undefined));
    return retrying as Promise<CutOffOutcome[]>;
  };
  const cutOffTimer = setInterval(() => {
    retryCutOffs().catch((e: unknown) => console.error("[dataspace] retrying permit cut-offs failed:", e));
  }, RETRY_BASE_MS);
  cutOffTimer.unref();
  const bind =
    <A extends unknown[], R>(f: (rt: DataspaceRuntime, ...args: A) => R) =>
    (...args: A) =>
      f(rt, ...args);

  return {
    /** "embedded": the local development dataspace; "connector": the configured connector */
    mode: local ? ("embedded" as const) : ("connector" as const),
    /** the embedded dataspace's endpoints (undefined with a configured connector) */
    local,
    runtime: rt,
    /** hits, misses and coalesced calls of the upstream read cache */
    readCache,

    /** the access body's data permits that contracts and pulls are checked against (permits.ts) */
    usePermits(register: PermitRegister) {
      rt.permits = register;
    },
    /**
     * the operator's participant directory, by DID: where a provider's DSP address is (provider-address.ts) and
     * which hosts besides it its data plane may be on (decision 0106)
     */
    useDirectory(lookup: DirectoryLookup) {
      rt.directory = lookup;
    },
    /** a data permit was revoked: its transfers end at the connector (cut-off.ts) */
    cutOffPermit: bind(cutOffPermit),
    /** takes up the pending cut-offs that are due now (also run by a timer every RETRY_BASE_MS) */
    retryCutOffs,

    /**
     * The participant context `user` may act in when asking for `participantId` (acting.ts: a
     * CONNECTOR_ADMIN any, everyone else only their own organisation's): `participantId`, or a 403.
     * Every route that reads or acts in a participant context asks this first.
     */
    async actingFor(user: SessionUser, participantId: string): Promise<string> {
      if (actsForAnyContext(user)) return participantId;
      return decideActing(user, ownContextId(await participants.participantForUser(rt, user)), participantId);
    },

    listNegotiations: bind(negotiations.listNegotiations),
    fetchProviderCatalog: bind(negotiations.fetchProviderCatalog),
    providerAddressOf: bind(negotiations.providerAddressOf),
    summariseCatalog,
    startNegotiation: bind(negotiations.startNegotiation),
    getNegotiation: bind(negotiations.getNegotiation),

    listTransfers: bind(transfers.listTransfers),
    startTransfer: bind(transfers.startTransfer),
    getTransfer: bind(transfers.getTransfer),
    pullTransferData: bind(transfers.pullTransferData),

    listAssets: bind(assets.listAssetsOf),
    listAssetGroups: bind(assets.listAssetGroups),
    createAsset: bind(assets.createAsset),
    /** which of a participant's assets its connector offers, under which policies (the share page) */
    offersOf: bind(assets.offersOf),
    offerAsset: bind(assets.offerAsset),
    withdrawOffer: bind(assets.withdrawOffer),

    listParticipants: bind(participants.listParticipants),
    onboardParticipant: bind(participants.onboardParticipant),
    updateParticipant: bind(participants.updateParticipant),
    participantStatus: bind(participants.participantStatus),
    participantForUser: bind(participants.participantForUser),
    participantCredentials: bind(participants.participantCredentials),

    listTasks: bind(tasks.listTasks),

    listCredentialDefinitions: bind(credentials.listCredentialDefinitions),
    requestCredential: bind(credentials.requestCredential),
    revokeCredential: bind(credentials.revokeCredential),

    /** the graph bridge, where a provider data plane reads an asset's data (graph-bridge.ts) */
    answerGraphBridge: bind(answerGraphBridge),
    /** what the embedded data plane delivers for an asset under an agreement: the bridge's answer (graph-bridge.ts) */
    releasedAnswer: bind(releasedAnswer),

    async close() {
      clearInterval(cutOffTimer);
      await retrying?.catch(() => {});
      await pool?.close();
      await pullPool?.close();
      await local?.close();
    },
  };
}
