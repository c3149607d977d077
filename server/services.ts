import type { Versions } from "./http/kept";
import type { Config } from "./config";
import { createHealthCheck, type Health } from "./health";
import type { HealthMonitor } from "./health/monitor";
import { createAuditLog, type AuditLog } from "./audit/log";
import { auditAnchor } from "./audit/key";
import { createAccessLog, type AccessLog } from "./audit/access-log";
import { createAccessBodyWithCompliance, type AccessBodyWithCompliance } from "./compliance";
import { createOidcClient, type OidcClient } from "./auth/oidc-client";
import { createSessionStore, type SessionStore } from "./auth/sessions";
import { IDP_CLIENT_ID } from "./auth/idp/provider";
import { idpClientSecret } from "./auth/idp/keys";
import { createCatalogueService, type CatalogueService } from "./catalogue/service";
import type { Dataspace } from "./dataspace";
import { createGraphService, type GraphService } from "./graph/service";
import { createSqliteGraphStore } from "./graph/sqlite-store";
import { createNeo4jGraphStore } from "./graph/neo4j-store";
import { createPostgresGraphStore } from "./graph/postgres-store";
import type { GraphStore } from "./graph/store";
import { createOfficeGate, type OfficeGate } from "./http/office-gate";
import type { AnalyticsService } from "./analytics/service";
import type { EehrxfService } from "./eehrxf/service";
import type { FederatedService } from "./federated/service";
import type { NlqService } from "./nlq/service";
import { createInsightServices } from "./overview/insight";
import { startAuditBatchWriter } from "./audit/batch-thread";
import type { OverviewService } from "./overview/service";
import { createPatientService, type PatientService } from "./patient/service";
import { createEudiService, type EudiService } from "./eudi/service";
import { createPatientAppService, type PatientAppService } from "./patient-app/service";
import { openDatabase, type Db } from "./storage/database";
import { openRelational, type Relational } from "./storage/relational";
import { getOrCreateSecret } from "./storage/secrets";
import { embeddedDataspaceRestart, startDataspace } from "./start-dataspace";
import { berlinDate, type PermitData } from "./access-body";
import { FOR_ANONYMISED_DATA_ONLY, formAllows, type PermitRegister } from "./dataspace/permits";
// trust and governance (issue 4)
import { createRetentionService, type RetentionService } from "./audit/retention";
import { createAuditView, type AuditView } from "./privacy/audit-view";
import { createCredentialService, type CredentialService } from "./credentials/service";
import { createOperatorService, type OperatorService } from "./operator/service";
import { createPolicyService, type PolicyService } from "./policies/service";
import { createTrustCenterService, type TrustCenterService } from "./trust-center/service";

/**
 * The service container: every service built once from Config and handed to routes, views,
 * tests and the desktop shell. Nothing here is a module-level singleton.
 */
export interface Services {
  config: Config;
  /** the embedded SQLite file of DATA_DIR: the embedded graph and development dataspace */
  db: Db;
  /** the relational store (server/storage/relational): PostgreSQL when DATABASE_URL is set, else `db` */
  rel: Relational;
  audit: AuditLog;
  /** looks at identified records and refused requests, batched and coalesced (server/audit/access-log.ts) */
  accessLog: AccessLog;
  /** the audit entries as a reader may see them (server/privacy/audit-view.ts) */
  auditView: AuditView;
  graph: GraphStore;
  graphQueries: GraphService;
  sessions: SessionStore;
  oidc: OidcClient;
  /** set when the embedded provider serves sign-in (no OIDC_ISSUER) */
  embeddedIdp: { clientId: string; clientSecret: string } | undefined;
  officeHours: OfficeGate;
  /** the background probes GET /api/health answers from (server/health) */
  health: HealthMonitor<Health>;
  catalogue: CatalogueService;
  patients: PatientService;
  /** participants, assets, negotiations, transfers, tasks and credentials over the connector (server/dataspace) */
  dataspace: Dataspace;
  /** the access body's workflows, register, activity report, compliance summary and probes (server/access-body) */
  accessBody: AccessBodyWithCompliance;
  /** EU Digital Identity Wallet sign-in: OpenID4VP verifier, development wallet (server/eudi) */
  eudi: EudiService;
  /** the companion app: app accounts, pairing, FHIR record, self-measured data, sync, erasure (server/patient-app) */
  patientApp: PatientAppService;
  /** insight (server/analytics, federated, nlq, eehrxf, overview): OMOP dashboard, k-anonymous federated cohorts, questions, EEHRxF coverage, persona overview */
  analytics: AnalyticsService;
  federated: FederatedService;
  nlq: NlqService;
  eehrxf: EehrxfService;
  overview: OverviewService;
  /** trust and governance (issue 4): verifiable credentials, ODRL policies, audit retention, operator console, trust center */
  credentials: CredentialService;
  policies: PolicyService;
  auditRetention: RetentionService;
  operator: OperatorService;
  trustCenter: TrustCenterService;
  /** the loopback origin the server listens on, once it does (for server-to-server calls to itself) */
  runtime: { internalOrigin: string | undefined };
  /** the version counters kept route answers are keyed by (server/kept); static mode keeps nothing */
  versions?: Versions;
  /** writes what the read logs hold (insight queries, companion-app record reads); resolves once it is in the audit log */
  flushReadLogs(): Promise<void>;
  close(): Promise<void>;
}

/**
 * How often the audit chain's head is checkpointed outside the database when it has moved: entries
 * newer than the last checkpoint (at most this old) are the ones a deletion could take unnoticed.
 */
export const AUDIT_CHECKPOINT_MS = 5_000;

/** The live container. Static mode builds its own from fixtures: `createStaticServices` (server/static-mode/replay.ts). */
export async function createServices(config: Config): Promise<Services> {
  if (config.appMode === "static")
    throw new Error("createServices builds the live services; static mode uses createStaticServices");
  const db = openDatabase(config.dataDir);
  const rel = await openRelational({ databaseUrl: config.databaseUrl, sqlite: db });
  // the chain keyed with a secret the database does not hold, checkpointed beside it (decision 0044)
  if (config.databaseUrl && !config.auditKey)
    console.warn(
      "[audit] DATABASE_URL without AUDIT_KEY: the audit key is kept in DATA_DIR; every instance on this database must be given one AUDIT_KEY, or the chain will not verify",
    );
  const audit = await createAuditLog(rel, db, auditAnchor(config));
  const checkpoints = setInterval(
    () => void audit.checkpoint().catch((e) => console.error("[audit] checkpoint not written:", e)),
    AUDIT_CHECKPOINT_MS,
  );
  checkpoints.unref();
  // one graph for every instance that shares the relational store: Neo4j, else PostgreSQL with
  // DATABASE_URL; the embedded SQLite graph only beside the embedded relational store (decision 0051)
  const graph = config.neo4j
    ? await createNeo4jGraphStore({ ...config.neo4j, timeoutMs: config.upstreamTimeoutMs }, audit, rel)
    : rel.dialect === "postgres"
      ? await createPostgresGraphStore(rel, audit, { timeoutMs: config.upstreamTimeoutMs })
      : createSqliteGraphStore(db, audit);
  const dataspace = await startDataspace(config, { db, rel, audit, graph });
  const sessionSecret = config.sessionSecret ?? (await getOrCreateSecret(rel, "session-secret"));
  // the relying-party client in use (the operator console may rebuild it): it re-checks provider sessions
  let currentOidc: OidcClient | undefined;
  const sessions = await createSessionStore(rel, {
    secret: sessionSecret,
    secure: config.publicUrl.startsWith("https:"),
    providerCheck: {
      ...config.oidcSessionCheck,
      refresh: (refreshToken) =>
        currentOidc
          ? currentOidc.refreshSession(refreshToken)
          : Promise.resolve({ state: "unreachable", reason: "no relying-party client yet" }),
    },
  });
  const runtime: Services["runtime"] = { internalOrigin: undefined };
  const embeddedIdp = config.oidc
    ? undefined
    : { clientId: IDP_CLIENT_ID, clientSecret: await idpClientSecret(rel) };
  const publicOrigin = new URL(config.publicUrl).origin;
  const makeOidc = () =>
    (currentOidc = createOidcClient(
      {
        issuer: config.oidc?.issuer ?? `${config.publicUrl}/idp`,
        clientId: config.oidc?.clientId ?? embeddedIdp!.clientId,
        clientSecret: config.oidc?.clientSecret ?? embeddedIdp!.clientSecret,
        publicUrl: config.publicUrl,
        secret: sessionSecret,
        timeoutMs: config.upstreamTimeoutMs,
        internalUrl: embeddedIdp
          ? (u) =>
              runtime.internalOrigin && u.startsWith(publicOrigin)
                ? runtime.internalOrigin + u.slice(publicOrigin.length)
                : u
          : undefined,
      },
      sessions,
    ));
  const oidc = makeOidc();
  const health = createHealthCheck(graph, oidc);
  // trust and governance (issue 4): the operator console can rebuild the relying-party client
  const operator = await createOperatorService({
    db,
    rel,
    audit,
    config,
    graph,
    dataspace,
    oidc,
    makeOidc,
    embeddedIdp: !!embeddedIdp,
    embeddedDataspace: dataspace.local ? embeddedDataspaceRestart(config, dataspace) : undefined,
  });
  // by a provider's DID: its DSP address for a catalogue request without one (server/dataspace/provider-address.ts),
  // and the hosts besides its DSP host a pull may GET its data plane on (decision 0106)
  dataspace.useDirectory(operator.directoryEntry);

  // the insight query logs' batches: on the embedded store, a thread of their own (decision 0034)
  const auditBatches = await startAuditBatchWriter({ audit, rel, db });
  const insight = createInsightServices({ graph, auditBatches, config });
  // every look at an identified record and every refused request, through the same writer (issue 34)
  const accessLog = createAccessLog(auditBatches, audit);
  // the companion app's record reads are looks too (server/patient-app/record.ts)
  const patientApp = await createPatientAppService({ rel, audit, graph, config, accessLog });
  const graphQueries = createGraphService(graph, {
    pseudonymSecret: await getOrCreateSecret(rel, "pseudonym-secret"),
    accessLog,
  });
  const accessBody = await createAccessBodyWithCompliance({
    rel,
    audit,
    graph,
    config,
    runtime,
    // a revoked permit cuts its agreements off at the connector (issue 37)
    onPermitRevoked: (permitId, reason, actor) => dataspace.cutOffPermit(permitId, reason, actor),
  });
  // contracts and pulls of health data rest on the access body's data permits (issue 34)
  dataspace.usePermits(permitRegisterOf(accessBody));
  const flushReadLogs = async () => {
    await insight.federated.flushLog();
    await insight.nlq.flushLog();
    await patientApp.flushLog();
    await accessLog.flush();
  };
  return {
    config,
    db,
    rel,
    audit,
    auditView: createAuditView({
      audit,
      redactor: (viewer) => graphQueries.redactor(viewer),
      patientsOf: (usernames) => sessions.patientsOf(usernames),
    }),
    graph,
    graphQueries,
    sessions,
    oidc,
    embeddedIdp,
    officeHours: createOfficeGate(config),
    health,
    catalogue: createCatalogueService(graph, () => insight.federated.withheldCounts()),
    patients: createPatientService(graph, accessLog),
    accessLog,
    dataspace,
    accessBody,
    eudi: await createEudiService({ rel, audit, graph, sessions, config, runtime }),
    patientApp,
    ...insight,
    credentials: createCredentialService({ config, dataspace }),
    policies: await createPolicyService({ rel, audit, dataspace }),
    auditRetention: await createRetentionService(rel, audit),
    operator,
    trustCenter: await createTrustCenterService({ rel, audit, config, graph }),
    runtime,
    versions: {
      graph: () => graph.version(),
      records: () => accessBody.readyVersion(),
      audit: () => audit.version(),
      day: () => {
        const at = accessBody.now();
        return `${berlinDate(at)}|${at.toISOString().slice(0, 10)}`;
      },
    } satisfies Versions,
    flushReadLogs,
    async close() {
      health.stop();
      // the read logs write in batches: write what is pending before the database closes
      await flushReadLogs();
      await accessLog.close();
      await auditBatches.close();
      clearInterval(checkpoints);
      await audit.checkpoint();
      await operator.close();
      await dataspace.close();
      await graph.close();
      await rel.close();
      db.close();
    },
  };
}

/**
 * The access body's data permits as the dataspace reads them (server/dataspace/permits.ts): an
 * ACTIVE permit whose validity has not ended names an organisation (by DID) and its datasets, in the
 * data form its application asked for (pseudonymised, or anonymised).
 */
function permitRegisterOf(accessBody: AccessBodyWithCompliance): PermitRegister {
  const valid = (p: { state: string; data: PermitData }) =>
    p.state === "ACTIVE" &&
    p.data.validUntil >= berlinDate(accessBody.now()) &&
    p.data.validFrom <= berlinDate(accessBody.now());
  return {
    async validFor(organisationDid, datasets, disclosure) {
      await accessBody.ensureReady();
      const active = await accessBody.store.list<PermitData>("permit", { state: "ACTIVE" });
      const permit = active
        .filter(
          (p) => valid(p) && p.data.organisationDid === organisationDid && formAllows(p.data, disclosure),
        )
        .reverse()
        .find((p) => p.data.datasets.some((d) => datasets.includes(d)));
      return permit ? { id: permit.id, pseudonymised: permit.data.pseudonymised } : undefined;
    },
    async stateOf(permitId, disclosure) {
      await accessBody.ensureReady();
      const p = await accessBody.store.get<PermitData>(permitId);
      if (!p || p.kind !== "permit") return undefined;
      const state = p.state === "ACTIVE" && !valid(p) ? "EXPIRED" : p.state;
      return state === "ACTIVE" && !formAllows(p.data, disclosure) ? FOR_ANONYMISED_DATA_ONLY : state;
    },
    async namedIn(permitId, datasets) {
      await accessBody.ensureReady();
      const p = await accessBody.store.get<PermitData>(permitId);
      return p?.kind === "permit" ? datasets.filter((d) => p.data.datasets.includes(d)) : [];
    },
  };
}
