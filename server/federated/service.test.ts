import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, seededInsight } from "../../tests/support/insight";
import { AGE_BANDS, GENDERS, type OmopIndex } from "../analytics/omop-index";
import { createConceptCache, loadConcepts, type ConceptDictionary } from "../analytics/concepts";
import { Prng } from "../graph/synthetic/prng";
import { hasCondition, oracle, takes, type OraclePatient } from "../../tests/support/nlq-oracle";
import { findDisclosures } from "./audit";
import { CRITERIA, createFederatedService, protectedCohort, type ResolvedCriteria } from "./service";
import type { CountNode } from "./suppression";

const N = 300;
let insight: Awaited<ReturnType<typeof seededInsight>>;
let index: OmopIndex;
let dict: ConceptDictionary;
let people: OraclePatient[];

beforeAll(async () => {
  insight = await seededInsight(N);
  index = await (await import("../analytics/omop-index")).buildOmopIndex(insight.graph);
  dict = await loadConcepts(insight.graph);
  people = oracle(N);
});
afterAll(() => insight?.close());

function flatten(node: CountNode, out = new Map<string, CountNode>()) {
  out.set(node.key, node);
  for (const g of node.groups ?? []) for (const c of g) flatten(c, out);
  return out;
}

/** a random cohort: each criterion present with some probability, values biased towards rare concepts */
function randomCriteria(rng: Prng): ResolvedCriteria {
  const c: ResolvedCriteria = {};
  if (rng.chance(0.6)) c.condition = rng.pick(dict.byKind.condition);
  if (rng.chance(0.4)) c.drug = rng.pick(dict.byKind.drug);
  if (rng.chance(0.25)) c.measurement = rng.pick(dict.byKind.measurement);
  if (rng.chance(0.35)) c.ageBand = rng.pick(AGE_BANDS);
  if (rng.chance(0.35)) c.gender = rng.pick(["female", "male"] as const);
  return c;
}

/** the published number of a cell, as a client sees it */
const seen = (n: CountNode | undefined) => (n && !n.suppressed ? n.value : null);

describe("federated cohorts: k-anonymity property over generated cohorts", () => {
  it("no answer reveals a count in 1..k−1, directly or by subtraction from any published total or subtotal (3,000 cohorts)", () => {
    const rng = new Prng(77, 2);
    let published = 0;
    let suppressed = 0;
    let complementary = 0;
    let differencing = 0;
    for (let i = 0; i < 3000; i++) {
      const k = rng.pick([5, 5, 5, 6, 8, 10]);
      const criteria = randomCriteria(rng);
      const { tree } = protectedCohort(index, criteria, k);
      const leaks = findDisclosures(tree, k);
      if (leaks.length)
        throw new Error(
          `cohort ${i} (k=${k}, ${JSON.stringify(Object.keys(criteria))}) leaks ${JSON.stringify(leaks[0])}`,
        );
      for (const n of flatten(tree).values()) {
        if (!n.suppressed) {
          published++;
          expect(n.value === 0 || n.value >= k).toBe(true);
        } else {
          suppressed++;
          if (n.reason === "complementary") complementary++;
          if (n.reason === "differencing") differencing++;
        }
      }
    }
    // the generated cohorts exercise every rule
    expect(published).toBeGreaterThan(10_000);
    expect(suppressed).toBeGreaterThan(5_000);
    expect(complementary).toBeGreaterThan(200);
    expect(differencing).toBeGreaterThan(20);
  });

  it("no published cell differs from the same published cell of the query with one criterion fewer by 1..k−1 (1,500 pairs)", () => {
    const rng = new Prng(78, 3);
    let compared = 0;
    for (let i = 0; i < 1500; i++) {
      const k = rng.pick([5, 7]);
      const criteria = randomCriteria(rng);
      const present = CRITERIA.filter((key) => criteria[key] !== undefined);
      if (!present.length) continue;
      const child = flatten(protectedCohort(index, criteria, k).tree);
      for (const key of present) {
        const parentCriteria = { ...criteria };
        delete parentCriteria[key];
        const parent = flatten(protectedCohort(index, parentCriteria, k).tree);
        for (const [cell, node] of child) {
          const a = seen(node);
          const b = seen(parent.get(cell));
          if (a === null || b === null) continue;
          compared++;
          const diff = b - a;
          if (diff >= 1 && diff <= k - 1)
            throw new Error(`cohort ${i}: ${cell} published as ${a} and ${b} without ${key} (k=${k})`);
        }
      }
    }
    expect(compared).toBeGreaterThan(5000);
  });

  it("published counts are the true counts (checked against the generator)", () => {
    const rng = new Prng(79, 4);
    for (let i = 0; i < 300; i++) {
      const criteria = randomCriteria(rng);
      delete criteria.measurement;
      const { tree } = protectedCohort(index, criteria, 5);
      const match = (p: OraclePatient) =>
        (!criteria.condition || hasCondition(p, criteria.condition.code)) &&
        (!criteria.drug || takes(p, criteria.drug.code)) &&
        (!criteria.ageBand || p.ageBand === criteria.ageBand) &&
        (!criteria.gender || p.profile.gender === criteria.gender);
      const members = people.filter(match);
      expect(tree.value).toBe(members.length);
      const cells = flatten(tree);
      for (const g of GENDERS)
        expect(cells.get(`gender:${g}`)!.value).toBe(members.filter((p) => p.profile.gender === g).length);
      for (const h of ["alphaklinik-berlin", "lmc"])
        expect(cells.get(`holder:${h}`)!.value).toBe(members.filter((p) => p.profile.holder === h).length);
      for (const b of AGE_BANDS)
        expect(cells.get(`age:${b}`)!.value).toBe(members.filter((p) => p.ageBand === b).length);
    }
  });
});

describe("GET /api/federated service", () => {
  const q = (s: string) => new URLSearchParams(s);

  it("summarises a cohort per secure processing environment with strata, k and the rules", async () => {
    const s = await insight.federated.summary(q("condition=hypertension"), ADMIN);
    expect(s.k).toBe(5);
    expect(s.criteria.condition).toMatchObject({
      input: "hypertension",
      code: "38341003",
      system: "SNOMED CT",
      icd10: "I10",
    });
    expect(s.environments.map((e) => e.holder)).toEqual(["alphaklinik-berlin", "lmc"]);
    expect(s.environments[0]).toMatchObject({
      name: "AlphaKlinik Berlin",
      environment: "AlphaKlinik Berlin secure processing environment",
    });
    expect(s.cohort.count).toBe(people.filter((p) => hasCondition(p, "38341003")).length);
    expect(s.strata.gender.map((g) => g.key)).toEqual(["female", "male", "other", "unknown"]);
    expect(s.strata.ageBand.map((a) => a.key)).toEqual([...AGE_BANDS]);
    expect(s.suppression.rule).toMatch(/Counts from 1 to 4 are suppressed/);
    expect(s.method.length).toBeGreaterThan(2);
  });

  it("marks suppressed cells and never shows their values", async () => {
    const truth = people.filter((p) => hasCondition(p, "429513001")).length;
    expect(truth).toBeGreaterThanOrEqual(1);
    expect(truth).toBeLessThanOrEqual(4);
    const s = await insight.federated.summary(q("condition=tendon%20rupture"), ADMIN);
    // one public reason for a count below k and for a complementary one (publicReason)
    expect(s.cohort).toMatchObject({
      count: null,
      suppressed: true,
      reason: "small-count",
      display: "<5 or withheld",
    });
    for (const c of [...s.environments, ...s.strata.gender, ...s.strata.ageBand])
      expect(c).toMatchObject({ count: null, suppressed: true });
  });

  // finding I1: told "below-k" and "complementary" apart, two suppressed siblings and their published
  // total said which of them is the small one, what complementary suppression hides
  it("publishes a count below k and its complementary sibling with the same reason", async () => {
    let found = 0;
    for (const condition of dict.byKind.condition) {
      const { tree } = protectedCohort(index, { condition }, 5);
      const group = tree.groups!.find(
        (g) => g.some((c) => c.reason === "below-k") && g.some((c) => c.reason === "complementary"),
      );
      if (tree.suppressed || !group) continue;
      const s = await insight.federated.summary(q(`condition=${condition.code}`), ADMIN);
      expect(s.k).toBe(5);
      const cells = new Map<string, { suppressed: boolean; reason?: string; display: string }>([
        ...s.environments.map((e) => [`holder:${e.holder}`, e] as const),
        ...s.strata.gender.map((g) => [`gender:${g.key}`, g] as const),
        ...s.strata.ageBand.map((a) => [`age:${a.key}`, a] as const),
      ]);
      const primary = cells.get(group.find((c) => c.reason === "below-k")!.key);
      const complementary = cells.get(group.find((c) => c.reason === "complementary")!.key);
      expect(primary).toMatchObject({ suppressed: true, reason: "small-count" });
      expect(complementary).toMatchObject({ suppressed: true, reason: "small-count" });
      // and one display, true of both: the complementary count may be 5 or more, so not "<5" (0093)
      expect([primary?.display, complementary?.display]).toEqual(["<5 or withheld", "<5 or withheld"]);
      for (const c of [s.cohort, ...cells.values()])
        expect(["small-count", "parent-suppressed", "differencing", undefined]).toContain(c.reason);
      found++;
    }
    expect(found).toBeGreaterThan(0);
  });

  // docs/decisions/0093: the "unknown" age band is listed only when there are persons of unknown
  // age in the cohort; listed as "<5" under a suppressed cohort, it said that one of them has no known age
  it("lists the 'unknown' age band only when its count is published, never under a suppressed cohort", async () => {
    const withUnknownAge = (persons: Set<number>): OmopIndex => ({
      ...index,
      persons: index.persons.map((p, i) => (persons.has(i) ? { ...p, ageBand: "unknown" } : p)),
    });
    const ask = async (unknown: Set<number>, criteria: string) => {
      const omopIndex = withUnknownAge(unknown);
      const service = createFederatedService({
        graph: insight.graph,
        omop: {
          get: async () => ({ value: omopIndex, hit: true, version: 1, builtMs: 0 }),
          index: async () => omopIndex,
        },
        concepts: createConceptCache(insight.graph),
        k: 5,
      });
      return service.summary(q(criteria), ADMIN);
    };
    const members = (code: string) => [...index.conditions.get(code)!.persons];
    const unknownOf = (s: Awaited<ReturnType<typeof ask>>) =>
      s.strata.ageBand.find((b) => b.key === "unknown");

    // a cohort of fewer than k: all of it of unknown age, and still no "unknown" row
    const rupture = members("429513001");
    expect(rupture.length).toBeLessThan(5);
    const small = await ask(new Set(rupture), "condition=429513001");
    expect(small.cohort.suppressed).toBe(true);
    expect(unknownOf(small)).toBeUndefined();
    expect(small.strata.ageBand.map((b) => b.key)).toEqual([...AGE_BANDS]);

    // a cohort of k or more: 2 of unknown age are not listed, 6 are
    const hypertension = members("38341003");
    expect(hypertension.length).toBeGreaterThan(20);
    const two = await ask(new Set(hypertension.slice(0, 2)), "condition=38341003");
    expect(two.cohort.suppressed).toBe(false);
    expect(unknownOf(two)).toBeUndefined();
    const six = await ask(new Set(hypertension.slice(0, 6)), "condition=38341003");
    expect(unknownOf(six)).toMatchObject({ count: 6, suppressed: false });
  });

  it("accepts a larger k, refuses a smaller one, and validates criteria with clear errors", async () => {
    expect((await insight.federated.summary(q("k=11"), ADMIN)).k).toBe(11);
    await expect(insight.federated.summary(q("k=4"), ADMIN)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/at least 5/),
    });
    await expect(insight.federated.summary(q("k=abc"), ADMIN)).rejects.toMatchObject({ status: 400 });
    await expect(insight.federated.summary(q("condition=dragon%20pox"), ADMIN)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/no SNOMED CT or ICD-10 concept/),
    });
    await expect(insight.federated.summary(q("ageBand=12-20"), ADMIN)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/ageBand must be one of/),
    });
    await expect(insight.federated.summary(q("gender=x"), ADMIN)).rejects.toMatchObject({ status: 400 });
    const icd = await insight.federated.summary(q("condition=I10&gender=female&ageBand=60-69"), ADMIN);
    expect(icd.criteria.condition?.code).toBe("38341003");
    expect(icd.suppression.differencingChecked).toEqual(["condition", "ageBand", "gender"]);
  });

  it("logs every query to the audit log", async () => {
    await insight.federated.flushLog();
    const before = await insight.audit.count();
    await insight.federated.summary(q("drug=metformin"), ADMIN);
    await insight.federated.flushLog();
    expect(await insight.audit.count()).toBe(before + 1);
    expect((await insight.audit.list({ kind: "insight", limit: 1 }))[0]).toMatchObject({
      action: "federated.query",
      actor: "admin",
      target: "drug=metformin",
    });
  });
});

describe("FEDERATED_K", () => {
  it("defaults to 5, can be raised, and is never accepted below 5", async () => {
    const { loadConfig, ConfigError } = await import("../config");
    expect(loadConfig({}).federatedK).toBe(5);
    expect(loadConfig({ FEDERATED_K: "11" }).federatedK).toBe(11);
    expect(() => loadConfig({ FEDERATED_K: "4" })).toThrow(ConfigError);
    expect(() => loadConfig({ FEDERATED_K: "4" })).toThrow(/FEDERATED_K: must be at least 5/);
  });
});

describe("federated summary: kept answers", () => {
  it("logs every query, also when its answer was encoded before", async () => {
    await insight.federated.flushLog();
    const before = await insight.audit.count();
    for (let i = 0; i < 3; i++) await insight.federated.summary(new URLSearchParams("k=6"), ADMIN);
    await insight.federated.flushLog();
    expect(await insight.audit.count()).toBe(before + 3);
    const [last] = await insight.audit.list({ limit: 1, kind: "insight" });
    expect(last).toMatchObject({ action: "federated.query", actor: "admin", target: "all persons" });
    expect(last.outcome).toMatch(/^k=6; cohort /);
  });

  it("refuses the same bad input as before, and keeps nothing of it", async () => {
    const bad = new URLSearchParams("condition=no-such-condition-anywhere");
    await expect(insight.federated.summary(bad, ADMIN)).rejects.toMatchObject({ status: 400 });
    await expect(insight.federated.summary(bad, ADMIN)).rejects.toMatchObject({ status: 400 });
    await expect(insight.federated.summary(new URLSearchParams("k=2"), ADMIN)).rejects.toMatchObject({
      status: 400,
    });
  });

  it("shows a write to the OMOP layer at once", async () => {
    const before = (await insight.federated.summary(new URLSearchParams(), ADMIN)) as unknown as {
      cohort: { count: number | null };
      graphVersion: number;
    };
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: {
            id: "omop-person-summary-test-1",
            label: "OMOPPerson",
            layer: "l4",
            properties: {
              personId: 9_999_991,
              genderSourceValue: "female",
              yearOfBirth: 1980,
              careSiteSourceValue: "alpha-klinik",
            },
          },
        },
      ],
      { action: "test.write", actor: "test", target: "omop-person-summary-test-1", kind: "test" },
    );
    const after = (await insight.federated.summary(new URLSearchParams(), ADMIN)) as unknown as {
      cohort: { count: number | null };
      graphVersion: number;
    };
    expect(after.graphVersion).toBeGreaterThan(before.graphVersion);
    expect(after.cohort.count).toBe(before.cohort.count! + 1);
  });
});

describe("withheldCounts", () => {
  it("reads a dataset's INCLUDES as privacy does: a cell named by its persons' OMOP nodes is withheld too", async () => {
    // a holder's cell of a one-criterion cohort that k suppresses although it is not below k
    const cell = dict.byKind.condition.flatMap((concept) => {
      const { tree } = protectedCohort(index, { condition: concept }, 5);
      const hidden = tree.groups![0].find((c) => c.suppressed && c.value >= 5);
      if (!hidden) return [];
      const holder = hidden.key.slice("holder:".length);
      return [
        [...index.conditions.get(concept.code)!.persons].filter((i) => index.persons[i].holder === holder),
      ];
    })[0];
    expect(cell).toBeDefined();
    const id = "dataset-withheld-omop-cell-test";
    const targets = cell!.map((i) => `omop-person-${String(index.persons[i].personId).padStart(6, "0")}`);
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: { id, label: "HealthDataset", layer: "l2", properties: { recordCount: cell!.length } },
        },
        ...targets.map((target) => ({
          op: "createEdge" as const,
          edge: { id: `${id}:INCLUDES:${target}`, source: id, target, type: "INCLUDES" },
        })),
      ],
      { action: "test.write", actor: "test", target: id, kind: "test" },
    );
    expect(await insight.federated.withheldCounts()).toContain(id);
  });
});
