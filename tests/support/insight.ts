/**
 * A small seeded graph for the insight tests: the embedded store in memory with the synthetic
 * population (deterministic: same seed, same graph), and the insight services built on it.
 */
import { afterAll, beforeAll } from "vitest";
import { inlineBatchWriter } from "../../server/audit/batch-writer";
import { createAuditLog } from "../../server/audit/log";
import { createSqliteGraphStore } from "../../server/graph/sqlite-store";
import { seedStore } from "../../server/graph/synthetic/seed";
import { openDatabase } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { createInsightServices } from "../../server/overview/insight";

export async function seededInsight(patients: number, opts: { k?: number; proxyUrl?: string } = {}) {
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const graph = createSqliteGraphStore(db, audit);
  await seedStore(graph, { patients });
  const services = createInsightServices({
    graph,
    auditBatches: inlineBatchWriter(audit, rel),
    config: { federatedK: opts.k ?? 5, nlqProxyUrl: opts.proxyUrl, upstreamTimeoutMs: 2000 },
  });
  const close = async () => {
    await services.federated.flushLog();
    await services.nlq.flushLog();
    db.close();
  };
  return { db, audit, graph, ...services, close };
}

export type SeededInsight = Awaited<ReturnType<typeof seededInsight>>;

/**
 * A test file's seeded graph: built before its tests, closed after them. The object is filled in by
 * `beforeAll`, so read its members inside tests and hooks, not at the top of the file.
 */
export function seededInsightPerFile(
  patients: number,
  opts?: Parameters<typeof seededInsight>[1],
): SeededInsight {
  const insight = {} as SeededInsight;
  beforeAll(async () => {
    Object.assign(insight, await seededInsight(patients, opts));
  });
  afterAll(() => insight.close?.());
  return insight;
}

export const ADMIN = {
  username: "admin",
  name: "Admin",
  sub: "admin",
  roles: ["CONNECTOR_ADMIN" as const],
  organisation: "Dataspace Operator",
};
export const REGULATOR = {
  username: "regulator",
  name: "Regulator",
  sub: "regulator",
  roles: ["HDAB_AUTHORITY" as const],
  organisation: "MedReg DE",
  participantDid: "did:web:medreg.de:hdab",
};
export const RESEARCHER = {
  username: "researcher",
  name: "Researcher",
  sub: "researcher",
  roles: ["DATA_USER" as const, "CONNECTOR_USER_PARTICIPANT" as const],
  organisation: "PharmaCo Research AG",
  participantDid: "did:web:pharmaco.de:research",
};
export const CLINIC = {
  username: "clinic",
  name: "Clinic",
  sub: "clinic",
  roles: ["DATA_HOLDER" as const, "CONNECTOR_USER_PARTICIPANT" as const],
  organisation: "AlphaKlinik Berlin",
  participantDid: "did:web:alpha-klinik.de:participant",
};
export const PATIENT1 = {
  username: "patient1",
  name: "Maria Schneider",
  sub: "patient1",
  roles: ["PATIENT" as const],
  organisation: "Private individual",
  patientId: "patient-000001",
};
