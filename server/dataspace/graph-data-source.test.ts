import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../audit/log";
import { linked, type GraphStore } from "../graph";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import { seedStore } from "../graph/synthetic/seed";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { createPatientService } from "../patient/service";
import { ADMIN } from "../../tests/support/insight";
import { catalogueHolder, graphDataSource, type RecordScope } from "./graph-data-source";

/**
 * The data behind an asset (decision 0096), against the synthetic population of 40 patients the API
 * tests run on: only the providing holder's own patients that the scope's datasets include (the
 * INCLUDES edges the catalogue's recordCount counts), at most ten; nothing outside the scope, never
 * another holder's patients.
 */

type Bundle = { resourceType: string; total: number; entry: { resource: Record<string, unknown> }[] };
const ALPHA = "alphaklinik-berlin";
const DIABETES = "dataset-alphaklinik-diabetes";
const TYPE_2_DIABETES = "44054006";

let db: Db;
let graph: GraphStore;
beforeAll(async () => {
  db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  graph = createSqliteGraphStore(db, await createAuditLog(rel, db));
  await seedStore(graph, { patients: 40 });
});
afterAll(() => db?.close());

const records = async (scope: RecordScope) => (await graphDataSource(graph)("an-asset", scope)) as Bundle;
const patientsOf = (b: Bundle) => b.entry.map((e) => e.resource).filter((r) => r.resourceType === "Patient");
const recordCount = async (dataset: string) => Number((await graph.getNode(dataset))!.properties.recordCount);

describe("the records behind an asset", () => {
  it("of the diabetes dataset: exactly its patients (as many as its recordCount), each with type 2 diabetes", async () => {
    const bundle = await records({ holder: ALPHA, datasets: [DIABETES] });
    const patients = patientsOf(bundle);
    const count = await recordCount(DIABETES);
    expect(count).toBeGreaterThan(0);
    expect(patients).toHaveLength(Math.min(count, 10));
    const included = (await linked(graph, DIABETES, "INCLUDES", "out")).map((p) => p.id);
    for (const p of patients) {
      expect(included).toContain(p.graphId);
      expect(p.holder).toBe(ALPHA);
      const conditions = await linked(graph, String(p.graphId), "HAS_CONDITION", "out");
      expect(conditions.map((c) => c.properties.code)).toContain(TYPE_2_DIABETES);
    }
    // every resource is one of these patients' own
    const ids = new Set(patients.map((p) => p.graphId));
    for (const r of bundle.entry.map((e) => e.resource).filter((x) => x.resourceType !== "Patient"))
      expect(ids.has(r.patientId)).toBe(true);
    // pseudonymised for secondary use: no names, birth year only
    for (const k of ["name", "givenName", "familyName", "city"]) expect(patients[0]).not.toHaveProperty(k);
    expect(patients[0].birthDate).toMatch(/^\d{4}$/);
  });

  it("is bounded: ten patients of a larger dataset, all the holder's", async () => {
    expect(await recordCount("dataset-alphaklinik-ehr")).toBeGreaterThan(10);
    const patients = patientsOf(await records({ holder: ALPHA, datasets: ["dataset-alphaklinik-ehr"] }));
    expect(patients).toHaveLength(10);
    for (const p of patients) expect(p.holder).toBe(ALPHA);
  });

  it("gives nothing outside its scope: another holder's dataset, a holder without patients, no dataset, no holder (no fallback)", async () => {
    const empty = { resourceType: "Bundle", total: 0, entry: [] };
    for (const scope of [
      { holder: ALPHA, datasets: ["dataset-lmc-urinary-infections"] },
      { holder: "pharmaco", datasets: [DIABETES] },
      { holder: "pharmaco", datasets: ["pharmaco-asset"] },
      { holder: ALPHA, datasets: [] },
      { holder: ALPHA, datasets: ["patient-000001", "catalogue-health-dataspace"] },
      { holder: undefined, datasets: [DIABETES] },
    ])
      expect(await records(scope), JSON.stringify(scope)).toMatchObject(empty);
  });

  it("of several datasets: their patients once each", async () => {
    const both = patientsOf(
      await records({
        holder: "lmc",
        datasets: ["dataset-lmc-urinary-infections", "dataset-lmc-cardiovascular"],
      }),
    );
    const expected = new Set([
      ...(await linked(graph, "dataset-lmc-urinary-infections", "INCLUDES", "out")).map((p) => p.id),
      ...(await linked(graph, "dataset-lmc-cardiovascular", "INCLUDES", "out")).map((p) => p.id),
    ]);
    expect(new Set(both.map((p) => p.graphId))).toEqual(new Set([...expected].slice(0, 10)));
  });
});

describe("a patient who withdrew consent to the programme of the permit (decision 0119)", () => {
  it("is left out of what is released under that permit, and only that one, until consent is given again", async () => {
    const approval = (await graph.findNodes({ label: "HDABApproval", where: { applicant: "pharmaco" } }))[0];
    const permitId = String(approval.properties.permitNumber);
    const scope = { holder: ALPHA, datasets: [DIABETES] };
    const ids = async (permit?: string) =>
      patientsOf(await records({ ...scope, permitId: permit })).map((p) => p.graphId);
    const [withdrawn] = await ids(permitId);
    const patients = createPatientService(graph);
    await patients.grantConsent({ patientId: withdrawn, studyId: approval.id }, ADMIN);
    await patients.revokeConsent(String(withdrawn), approval.id, ADMIN);

    expect(await ids(permitId)).not.toContain(withdrawn);
    const count = await recordCount(DIABETES);
    expect(await ids(permitId)).toHaveLength(Math.min(count - 1, 10));
    // none of its records either
    const text = JSON.stringify(await records({ ...scope, permitId }));
    expect(text).not.toContain(`"${withdrawn}"`);
    // another permit, or none, is another programme
    expect(await ids("MEDREG-DP-2026-0099")).toContain(withdrawn);
    expect(await ids()).toContain(withdrawn);
    // consent given again: released again
    await patients.grantConsent({ patientId: withdrawn, studyId: approval.id }, ADMIN);
    expect(await ids(permitId)).toContain(withdrawn);
  });
});

describe("the catalogue's holder of a dataset", () => {
  it("is the dataset's holder; none for an id the catalogue has no dataset of", async () => {
    const holder = catalogueHolder(graph);
    expect(await holder("dataset-lmc-urinary-infections")).toBe("lmc");
    expect(await holder(DIABETES)).toBe(ALPHA);
    expect(await holder("dataset-nowhere")).toBeUndefined();
    expect(await holder("patient-000001")).toBeUndefined();
  });
});
