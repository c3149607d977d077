import { describe, expect, it } from "vitest";
import { aggregated, pseudonymFor, release } from "./release";

/** ten patients, each with a condition; two with a rare one */
const records = {
  resourceType: "Bundle",
  entry: Array.from({ length: 10 }, (_, i) => [
    { resource: { resourceType: "Patient", id: `patient-${i}`, name: [{ family: `Family${i}` }] } },
    {
      resource: {
        resourceType: "Condition",
        id: `condition-${i}`,
        patientId: `patient-${i}`,
        subject: `Patient/patient-${i}`,
        code: i < 2 ? "rare" : "44054006",
      },
    },
  ]).flat(),
};

describe("release: what leaves under a permit", () => {
  it("releasing twice is releasing once (the source releases, the hub's pull releases again)", () => {
    for (const disclosure of ["aggregate", "pseudonymised"] as const) {
      const once = release(records, disclosure, "secret", "permit-1");
      expect(release(once, disclosure, "secret", "permit-1"), disclosure).toEqual(once);
    }
    const once = release(records, "pseudonymised", "secret", "permit-1");
    expect(JSON.stringify(once)).not.toMatch(/patient-\d|Family/);
    expect(once.entry).toContainEqual({
      fullUrl: `urn:pseudonym:${pseudonymFor("secret", "permit-1", "condition-0")}`,
      resource: expect.objectContaining({
        patientId: pseudonymFor("secret", "permit-1", "patient-0"),
        subject: `Patient/${pseudonymFor("secret", "permit-1", "patient-0")}`,
      }),
    });
    // pseudonyms released under another permit are pseudonymised again: no link across permits
    const other = release(once, "pseudonymised", "secret", "permit-2") as {
      entry: { resource: { id: string } }[];
    };
    expect(other.entry[0].resource.id).toBe(
      pseudonymFor("secret", "permit-2", pseudonymFor("secret", "permit-1", "patient-0")),
    );
  });

  it("a released report is checked again: a small count, one a group lets be derived, or a withheld count's number withholds every count", () => {
    const report = aggregated(records) as {
      groups: { total: unknown; byCode: { count: number | null }[] }[];
    };
    expect(report.groups[0].byCode.map((c) => c.count)).toEqual([null, null]); // 2 and 8: complementary
    const tampered = (change: (r: typeof report) => void) => {
      const r = structuredClone(report);
      change(r);
      return aggregated(r);
    };
    const withheld = (r: unknown) =>
      JSON.stringify(r).match(/"count":\d/g) === null && (r as { k: number }).k === 5;
    const shown = (key: string, count: number) => ({ key, count, suppressed: false, display: String(count) });
    // a small count shown; 8 shown of a total of 10, which gives the withheld 2; a withheld count with its number
    expect(withheld(tampered((r) => (r.groups[0].byCode[0] = shown("rare", 2))))).toBe(true);
    expect(withheld(tampered((r) => (r.groups[0].byCode[1] = shown("44054006", 8))))).toBe(true);
    expect(withheld(tampered((r) => (r.groups[0].byCode[0].count = 2)))).toBe(true);
    expect(withheld(tampered(() => {}))).toBe(false);
  });

  it("the rare code and the one withheld to protect it read alike, also in a report released with both reasons", () => {
    type Report = { groups: { byCode: { key: string; suppressed: boolean; reason?: string }[] }[] };
    const report = aggregated(records) as Report;
    const reasons = (r: Report) => r.groups[0].byCode.map((c) => [c.key, c.suppressed, c.reason]);
    // 2 below k, 8 complementary: one public reason, or the total 10 says which is the 2
    expect(reasons(report)).toEqual([
      ["rare", true, "small-count"],
      ["44054006", true, "small-count"],
    ]);
    // a report released before told them apart; released again, it does not
    const before = structuredClone(report);
    before.groups[0].byCode[0].reason = "below-k";
    before.groups[0].byCode[1].reason = "complementary";
    expect(reasons(aggregated(before) as Report)).toEqual(reasons(report));
  });
});

describe("release: counts of records about few patients", () => {
  // six patients with one A each; one of them with six readings of B: six records, one patient
  const bundle = {
    resourceType: "Bundle",
    entry: [
      ...Array.from({ length: 6 }, (_, i) => [
        { resource: { resourceType: "Patient", id: `p-${i}` } },
        { resource: { resourceType: "Observation", id: `a-${i}`, patientId: `p-${i}`, code: "A" } },
      ]).flat(),
      ...Array.from({ length: 6 }, (_, i) => ({
        resource: {
          resourceType: "Observation",
          id: `b-${i}`,
          subject: { reference: "Patient/p-0" },
          code: "B",
        },
      })),
    ],
  };
  type Report = {
    groups: {
      total: { count: number | null };
      byCode: { key: string; count: number | null; reason?: string }[];
    }[];
  };

  it("withholds a code's count of k or more records about fewer than k patients, and keeps it from being recomputed", () => {
    const { groups } = aggregated(bundle) as Report;
    const [observations] = groups;
    const b = observations.byCode.find((c) => c.key === "B")!;
    expect(b).toMatchObject({ count: null, reason: "small-count" });
    // not the total less what is shown
    const shown = observations.byCode.reduce((a, c) => a + (c.count ?? 0), 0);
    expect(observations.total.count === null || observations.total.count - shown !== 6).toBe(true);
  });

  it("withholds a resource type's total about fewer than k patients", () => {
    const few = {
      resourceType: "Bundle",
      entry: bundle.entry.filter(
        (e) => e.resource.resourceType === "Patient" || e.resource.id.startsWith("b-"),
      ),
    };
    const { groups } = aggregated(few) as Report;
    expect(groups[0].total.count).toBeNull();
    expect(groups[0].byCode.map((c) => c.count)).toEqual([null]);
  });
});
