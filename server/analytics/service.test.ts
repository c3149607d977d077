import { describe, expect, it } from "vitest";
import { ADMIN, CLINIC, REGULATOR, RESEARCHER, seededInsightPerFile } from "../../tests/support/insight";
import { findAll } from "../graph";
import { num, str } from "./scan";
import { ageAt, ageBandOf, AGE_REFERENCE_DATE } from "./omop-index";

const insight = seededInsightPerFile(150);

describe("OMOP analytics", () => {
  it("totals agree exactly with the graph's own counts", async () => {
    const d = await insight.analytics.dashboard(ADMIN);
    const g = insight.graph;
    expect(d.totals.persons).toBe(await g.countWhere("OMOPPerson"));
    expect(d.totals.conditionOccurrences).toBe(await g.countWhere("ConditionOccurrence"));
    expect(d.totals.drugExposures).toBe(await g.countWhere("DrugExposure"));
    expect(d.totals.measurements).toBe(await g.countWhere("Measurement"));
    const rows = [
      ...(await findAll(g, "ConditionOccurrence")),
      ...(await findAll(g, "DrugExposure")),
      ...(await findAll(g, "Measurement")),
    ];
    expect(d.totals.visits).toBe(new Set(rows.map((r) => r.properties.visitOccurrenceId)).size);
    expect(d.holders.reduce((s, h) => s + (h.count ?? 0), 0)).toBe(d.totals.persons);
    for (const h of d.holders)
      expect(h.count).toBe(await g.countWhere("OMOPPerson", { careSiteSourceValue: h.key }));
  });

  it("top lists carry l5 names and exact row and person counts", async () => {
    const d = await insight.analytics.dashboard(ADMIN, { top: 5 });
    expect(d.topConditions).toHaveLength(5);
    const g = insight.graph;
    for (const t of d.topConditions) {
      const rows = await findAll(g, "ConditionOccurrence", { conditionSourceValue: t.code });
      expect(t.rows).toBe(rows.length);
      expect(t.persons).toBe(new Set(rows.map((r) => r.properties.personId)).size);
      const [concept] = await findAll(g, "SnomedConcept", { code: t.code });
      expect(t.display).toBe(concept.properties.display);
      expect(t.system).toBe("SNOMED CT");
    }
    for (const t of d.topDrugs)
      expect(t.rows).toBe(await g.countWhere("DrugExposure", { drugSourceValue: t.code }));
    for (const t of d.topMeasurements) {
      const rows = await findAll(g, "Measurement", { measurementSourceValue: t.code });
      expect(t.rows).toBe(rows.length);
      const values = rows.map((r) => num(r.properties.valueAsNumber)!);
      expect(t.mean).toBeCloseTo(values.reduce((s, v) => s + v, 0) / values.length, 2);
      expect(t.unit).toBe(str(rows[0].properties.unitSourceValue));
    }
    // sorted by persons
    const persons = d.topConditions.map((t) => t.persons!);
    expect([...persons].sort((a, b) => b - a)).toEqual(persons);
  });

  it("gender and age distributions partition the persons", async () => {
    const d = await insight.analytics.dashboard(ADMIN);
    const persons = await findAll(insight.graph, "OMOPPerson");
    for (const gcell of d.gender)
      expect(gcell.count).toBe(persons.filter((p) => p.properties.genderSourceValue === gcell.key).length);
    for (const b of d.ageBands) {
      const expected = persons.filter(
        (p) =>
          ageBandOf(
            ageAt(
              AGE_REFERENCE_DATE,
              num(p.properties.yearOfBirth)!,
              num(p.properties.monthOfBirth),
              num(p.properties.dayOfBirth),
            ),
          ) === b.key,
      ).length;
      expect(b.count).toBe(expected);
    }
    expect(d.ageBands.reduce((s, b) => s + (b.count ?? 0), 0)).toBe(d.totals.persons);
  });

  it("is cached per graph version and recomputed after a write", async () => {
    const first = await insight.analytics.dashboard(ADMIN);
    const second = await insight.analytics.dashboard(ADMIN);
    // kept as built: the same answer (its time and cache note the build's), encoded once at the edge
    expect(second).toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: {
            id: "condition-occurrence-test-1",
            label: "ConditionOccurrence",
            layer: "l4",
            properties: {
              personId: 1,
              conditionSourceValue: "195967001",
              conditionConceptId: 317009,
              visitOccurrenceId: 999999,
            },
          },
        },
      ],
      { action: "test.write", actor: "test", target: "condition-occurrence-test-1", kind: "test" },
    );
    const third = await insight.analytics.dashboard(ADMIN);
    expect(third.cache.hit).toBe(false);
    // a write outside the OMOP layer keeps the index (no rescan), under the new version
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: { id: "consent-test-1", label: "Consent", layer: "l3", properties: { status: "active" } },
        },
      ],
      { action: "test.write", actor: "test", target: "consent-test-1", kind: "test" },
    );
    const fourth = await insight.analytics.dashboard(ADMIN);
    expect(fourth.cache.hit).toBe(true);
    expect(fourth.generatedAt >= third.generatedAt).toBe(true);
    expect(fourth.graphVersion).toBeGreaterThan(third.graphVersion);
    expect(fourth.totals).toEqual(third.totals);
    expect(third.totals.conditionOccurrences).toBe(first.totals.conditionOccurrences + 1);
    expect(third.totals.visits).toBe(first.totals.visits + 1);
    expect(third.graphVersion).toBeGreaterThan(first.graphVersion);
  });

  it("applies the k threshold of the caller's ODRL scope: exact for supervisors; for data users and holders small cells suppressed, and no concept listed whose count is", async () => {
    const admin = await insight.analytics.dashboard(ADMIN, { top: 40 });
    const regulator = await insight.analytics.dashboard(REGULATOR, { top: 40 });
    expect(admin.scope.k).toBeNull();
    expect(regulator.scope.k).toBeNull();
    // the exact lists have concepts only one to four persons have: what k must not give away by listing them
    const exactAll = [...admin.topConditions, ...admin.topDrugs, ...admin.topMeasurements];
    expect(exactAll.some((t) => t.persons! >= 1 && t.persons! < 5)).toBe(true);
    for (const user of [RESEARCHER, CLINIC]) {
      const d = await insight.analytics.dashboard(user, { top: 40 });
      expect(d.scope.k).toBe(5);
      const all = [...d.topConditions, ...d.topDrugs, ...d.topMeasurements];
      expect(all.length).toBeGreaterThan(0);
      // a row there only because someone has the concept is left out, not listed as "<5" (decision 0093)
      expect(all.filter((t) => t.suppressed)).toEqual([]);
      for (const t of all) {
        expect(t.persons).toBeGreaterThanOrEqual(5);
        if (t.rows !== null) expect(t.rows === 0 || t.rows >= 5).toBe(true);
      }
      expect(
        d.notes.some((n) => n.startsWith("under k = 5 a concept whose count is suppressed is left out")),
      ).toBe(true);
      // what is published agrees with the exact figures
      for (const t of d.topConditions) {
        const exact = admin.topConditions.find((x) => x.code === t.code)!;
        if (!t.suppressed) expect(t.persons).toBe(exact.persons);
      }
    }
  });

  it("exports CSV", async () => {
    const d = await insight.analytics.dashboard(ADMIN);
    const csv = insight.analytics.toCsv(d);
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe("section,code,system,name,rows,persons,unit,mean,sd,suppressed");
    expect(lines.some((l) => l.startsWith("condition,"))).toBe(true);
    expect(lines.find((l) => l.startsWith("total,persons,"))).toBe(
      `total,persons,,,${d.totals.persons},,,,,false`,
    );
    expect(csv).toContain('"Hypertensive disorder, systemic arterial"');
  });

  it("the CSV export never hands a spreadsheet a formula: a name starting with = + - @ is neutralised", async () => {
    const d = await insight.analytics.dashboard(RESEARCHER);
    const [first] = d.topConditions;
    const planted = { ...d, topConditions: [{ ...first, display: '=HYPERLINK("http://x","y")' }] };
    const line = insight.analytics
      .toCsv(planted)
      .split("\r\n")
      .find((l) => l.startsWith("condition,"));
    expect(line).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
  });

  it("the route's answer shows a write to the OMOP layer at once, and a write elsewhere under the new graph version", async () => {
    const before = await insight.analytics.dashboard(RESEARCHER);
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: {
            id: "drug-exposure-text-1",
            label: "DrugExposure",
            layer: "l4",
            properties: {
              personId: 1,
              drugSourceValue: "860975",
              drugConceptId: 1,
              visitOccurrenceId: 999998,
            },
          },
        },
      ],
      { action: "test.write", actor: "test", target: "drug-exposure-text-1", kind: "test" },
    );
    const after = await insight.analytics.dashboard(RESEARCHER);
    expect(after.totals.drugExposures).toBe(before.totals.drugExposures + 1);
    expect(after.graphVersion).toBeGreaterThan(before.graphVersion);
    expect(after.cache.hit).toBe(false);
    // a new policy of the marketplace layer changes the caller's scope in the next answer
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: {
            id: "policy-text-1",
            label: "OdrlPolicy",
            layer: "l1",
            properties: {
              policyType: "Agreement",
              assignee: RESEARCHER.participantDid,
              purpose: "textTestPurpose",
              prohibition: JSON.stringify([{ action: "textTestProhibition" }]),
            },
          },
        },
      ],
      { action: "test.write", actor: "test", target: "policy-text-1", kind: "test" },
    );
    const scoped = await insight.analytics.dashboard(RESEARCHER);
    expect(scoped.scope.purposes).toContain("textTestPurpose");
    expect(scoped.scope.prohibitions).toContain("textTestProhibition");
    expect(scoped.scope.policies.map((p) => p.id)).toContain("policy-text-1");
    expect(before.scope.purposes).not.toContain("textTestPurpose");
  });
});
