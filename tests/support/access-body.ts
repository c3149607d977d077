import { createAuditLog } from "../../server/audit/log";
import { findPersona } from "../../server/auth/personas";
import { personaSessionUser, type SessionUser } from "../../server/auth/user";
import type { EdgeRecord, NodeRecord } from "../../server/graph/model";
import { createSqliteGraphStore } from "../../server/graph/sqlite-store";
import { isApiError } from "../../server/http/errors";
import { openDatabase } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { createAccessBody, type AccessBodyOptions } from "../../server/access-body/index";

/** Fixtures of the access body's unit tests (workflows, records, reports) and of server/compliance. */

export function userOf(username: string): SessionUser {
  return personaSessionUser(findPersona(username)!);
}

export const regulator = userOf("regulator");

export const researcher = userOf("researcher");

export const admin = userOf("admin");

export const node = (id: string, label: string, properties: NodeRecord["properties"]): NodeRecord => ({
  id,
  label,
  layer: label === "HealthDataset" ? "l2" : "l1",
  properties,
});

export function marketplace(): { nodes: NodeRecord[]; edges: EdgeRecord[] } {
  const nodes = [
    node("participant-pharmaco", "Participant", {
      did: "did:web:pharmaco.de:research",
      slug: "pharmaco",
      displayName: "PharmaCo Research AG",
      role: "DATA_USER",
      dspEndpoint: "https://pharmaco.de/api/dsp",
    }),
    node("participant-irs", "Participant", {
      did: "did:web:irs.fr:research",
      slug: "irs",
      displayName: "Institut de Recherche Santé",
      role: "DATA_USER",
      dspEndpoint: "https://irs.fr/api/dsp",
    }),
    node("participant-alphaklinik-berlin", "Participant", {
      did: "did:web:alpha-klinik.de:participant",
      slug: "alphaklinik-berlin",
      displayName: "AlphaKlinik Berlin",
      role: "DATA_HOLDER",
      dspEndpoint: "https://alpha-klinik.de/api/dsp",
    }),
    node("participant-medreg", "Participant", {
      did: "did:web:medreg.de:hdab",
      slug: "medreg",
      displayName: "MedReg DE",
      role: "HDAB_AUTHORITY",
      dspEndpoint: "https://medreg.de/api/dsp",
    }),
    node("dataset-alphaklinik-diabetes", "HealthDataset", {
      title: "Type 2 diabetes cohort",
      recordCount: 120,
      publisher: "AlphaKlinik Berlin",
    }),
    node("dataset-alphaklinik-respiratory", "HealthDataset", {
      title: "Respiratory cohort",
      recordCount: 80,
      publisher: "AlphaKlinik Berlin",
    }),
    node("dataset-lmc-cardiovascular", "HealthDataset", {
      title: "Cardiovascular cohort",
      recordCount: 90,
      publisher: "Limburg Medical Centre",
    }),
    node("dataset-alphaklinik-mental-health", "HealthDataset", {
      title: "Mental health cohort",
      recordCount: 60,
      publisher: "AlphaKlinik Berlin",
    }),
    node("dataset-lmc-urinary-infections", "HealthDataset", {
      title: "Urinary tract infections",
      recordCount: 40,
      publisher: "Limburg Medical Centre",
    }),
    node("contract-0001", "Contract", {
      assetId: "asset-alphaklinik-diabetes",
      consumerDid: "did:web:pharmaco.de:research",
      providerDid: "did:web:alpha-klinik.de:participant",
      status: "active",
      negotiationState: "FINALIZED",
    }),
    node("contract-0002", "Contract", {
      assetId: "asset-lmc-cardiovascular",
      consumerDid: "did:web:irs.fr:research",
      providerDid: "did:web:lmc.nl:participant",
      status: "awaitingPermit",
      negotiationState: "AGREED",
    }),
    node("contract-0003", "Contract", {
      assetId: "asset-alphaklinik-respiratory",
      consumerDid: "did:web:pharmaco.de:research",
      providerDid: "did:web:alpha-klinik.de:participant",
      status: "awaitingPermit",
      negotiationState: "AGREED",
    }),
    node("approval-0001", "HDABApproval", {
      permitNumber: "MEDREG-DP-2025-0001",
      status: "GRANTED",
      applicant: "pharmaco",
      applicationDate: "2025-03-03",
      decisionDate: "2025-03-17",
      validUntil: "2027-03-16",
      purpose: "scientificResearch",
    }),
    node("approval-0002", "HDABApproval", {
      permitNumber: "MEDREG-DP-2025-0002",
      status: "PENDING",
      applicant: "irs",
      applicationDate: "2026-10-01",
      decisionDate: null,
      validUntil: null,
      purpose: "scientificResearch",
    }),
  ];
  const edges: EdgeRecord[] = [
    { id: "e1", source: "approval-0001", target: "contract-0001", type: "APPROVES" },
    { id: "e2", source: "approval-0002", target: "contract-0002", type: "APPROVES" },
    { id: "e3", source: "approval-0001", target: "participant-medreg", type: "ISSUED_BY" },
  ];
  return { nodes, edges };
}

/** an in-memory store with the marketplace above, and the access body built on it by `create` */
export async function setupWith<A>(
  create: (opts: AccessBodyOptions) => Promise<A>,
  start = "2026-11-16T09:00:00+01:00",
) {
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const graph = createSqliteGraphStore(db, audit);
  const m = marketplace();
  await graph.importBatch(m.nodes, m.edges);
  let now = new Date(start);
  const ab = await create({ rel, audit, graph, now: () => now });
  return {
    ab,
    graph,
    audit,
    setNow: (iso: string) => {
      now = new Date(iso);
    },
  };
}

export async function setup(start = "2026-11-16T09:00:00+01:00") {
  return setupWith(createAccessBody, start);
}

export async function status(
  p: Promise<unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (isApiError(e)) return { status: e.status, body: { error: e.message, ...(e.extra ?? {}) } };
    throw e;
  }
  throw new Error("expected an error");
}
