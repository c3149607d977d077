import { describe, expect, it } from "vitest";
import { generateGraph } from "./generate";

/** Issue 14: the marketplace's permits and applications are dated from the day of seeding, so they never age. */
function approvalsOn(day?: string) {
  const batches = generateGraph({ patients: 0, marketplaceDay: day });
  batches.next(); // the ontology
  const market = batches.next().value!;
  return market.nodes
    .filter((n: { label: string }) => n.label === "HDABApproval")
    .map((n: { properties: Record<string, unknown> }) => n.properties);
}

describe("marketplace dates", () => {
  for (const day of ["2026-11-24", "2031-03-01"]) {
    it(`seeded on ${day}: permits in force, the pending application recent, the revoked one issued before`, () => {
      const approvals = approvalsOn(day);
      expect(approvals).toHaveLength(6);
      for (const a of approvals) {
        expect(String(a.applicationDate) < day).toBe(true);
        if (a.status === "GRANTED") {
          expect(String(a.decisionDate) < day).toBe(true);
          expect(String(a.validUntil) > day).toBe(true);
          expect(a.permitNumber).toBe(
            `MEDREG-DP-${String(a.decisionDate).slice(0, 4)}-${String(a.permitNumber).slice(-4)}`,
          );
        }
        if (a.status === "PENDING") {
          const age = (Date.parse(day) - Date.parse(String(a.applicationDate))) / 86_400_000;
          expect(age).toBeGreaterThanOrEqual(20);
          expect(age).toBeLessThanOrEqual(60);
        }
      }
    });
  }

  it("is the generator's reference day without a seeding day (exports do not depend on the day)", () => {
    expect(approvalsOn()).toEqual(approvalsOn("2025-06-30"));
  });
});
