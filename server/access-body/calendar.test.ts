import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCivilDate } from "../http/contract-fields";

/** the check as it was: a round trip through a Date */
const roundTrip = (value: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return new Date(t).toISOString().slice(0, 10) === value;
};

const pad = (n: number, w: number) => String(n).padStart(w, "0");

describe("isCivilDate", () => {
  it("answers as a round trip through a Date, for any YYYY-MM-DD and any text", () => {
    const written = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
      )
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
    fc.assert(
      fc.property(fc.oneof(written, fc.string()), (v) => {
        expect(isCivilDate(v)).toBe(roundTrip(v));
      }),
      { numRuns: 20_000 },
    );
  });

  it("knows leap years and the ends of months", () => {
    expect(isCivilDate("2024-02-29")).toBe(true);
    expect(isCivilDate("2023-02-29")).toBe(false);
    expect(isCivilDate("2000-02-29")).toBe(true);
    expect(isCivilDate("1900-02-29")).toBe(false);
    expect(isCivilDate("2026-04-31")).toBe(false);
    expect(isCivilDate("2026-12-31")).toBe(true);
    expect(isCivilDate("2026-1-31")).toBe(false);
  });
});
