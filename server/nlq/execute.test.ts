import { describe, expect, it } from "vitest";
import type { CountNode } from "../federated";
import { CountCell, cohortWithheld, finalize } from "./execute";

// finding I1: a count below k and one suppressed to protect it must read alike in an answer, or two
// suppressed siblings and their published total say which is the small one
describe("finalize: suppressed cells under k", () => {
  it("tells a count below k and its complementary sibling the same reason, in one truthful text", () => {
    const small: CountNode = { key: "treated", value: 3 };
    const other: CountNode = { key: "untreated", value: 40 };
    const root: CountNode = { key: "cohort", value: 43, groups: [[small, other]] };
    const answer = finalize(
      {
        columns: [{ key: "patients", label: "Patients", type: "count" }],
        rows: [{ patients: new CountCell(small) }, { patients: new CountCell(other) }],
        roots: [root],
        interpretation: (show) => `${show(small)} treated, ${show(other)} untreated of ${show(root)}.`,
        plan: [],
      },
      5,
    );
    // the algorithm tells them apart (it needs to); the answer does not, and says no "<5" of the 40 alone
    expect(answer.interpretation).toBe(
      "[suppressed: <5, or withheld to protect a count <5] treated, [suppressed: <5, or withheld to protect a count <5] untreated of 43.",
    );
    expect([small.reason, other.reason]).toEqual(["below-k", "complementary"]);
    expect(answer.rows).toEqual([{ patients: null }, { patients: null }]);
    expect(answer.suppressedCells).toEqual([
      { row: 0, column: "patients", reason: "small-count" },
      { row: 1, column: "patients", reason: "small-count" },
    ]);
  });

  it("says one sentence for a cohort below k and one withheld to protect a small count", () => {
    const name = "patients with asthma";
    const below = cohortWithheld(
      { name, node: { key: "c", value: 3, suppressed: true, reason: "below-k" } },
      5,
    );
    const cover = cohortWithheld(
      { name, node: { key: "c", value: 12, suppressed: true, reason: "complementary" } },
      5,
    );
    expect(cover).toBe(below);
    expect(below).toMatch(/^The cohort's count is suppressed: fewer than 5 patients with asthma, or /);
  });
});
