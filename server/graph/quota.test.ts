import { describe, expect, it } from "vitest";
import { allocateQuota } from "./quota";

describe("allocateQuota", () => {
  it("shares evenly, gives small groups all they have and never exceeds the limit", () => {
    const q = allocateQuota(
      [
        { key: "a", available: 10 },
        { key: "b", available: 1000 },
        { key: "c", available: 1000 },
      ],
      100,
    );
    expect(Object.fromEntries(q)).toEqual({ a: 10, b: 45, c: 45 });
    const r = allocateQuota(
      [
        { key: "a", available: 3 },
        { key: "b", available: 3 },
      ],
      100,
    );
    expect([...r.values()].reduce((x, y) => x + y)).toBe(6);
    const s = allocateQuota(
      [
        { key: "a", available: 50 },
        { key: "b", available: 50 },
        { key: "c", available: 50 },
      ],
      2,
    );
    expect([...s.values()].reduce((x, y) => x + y)).toBe(2);
    expect(allocateQuota([{ key: "a", available: 0 }], 10).get("a")).toBe(0);
  });

  it("holds for many random cases", () => {
    for (let i = 0; i < 500; i++) {
      const groups = Array.from({ length: 1 + (i % 5) }, (_, k) => ({
        key: k,
        available: (i * 7919 + k * 104729) % 600,
      }));
      const limit = (i * 31) % 1200;
      const q = allocateQuota(groups, limit);
      const total = [...q.values()].reduce((a, b) => a + b, 0);
      const available = groups.reduce((a, g) => a + g.available, 0);
      expect(total).toBe(Math.min(limit, available));
      for (const g of groups) expect(q.get(g.key)!).toBeLessThanOrEqual(g.available);
    }
  });
});
