import { describe, expect, it } from "vitest";
import { allocateQuota } from "./quota";

describe("allocateQuota", () => {
  it("shares evenly, gives small groups all they have and never exceeds the limit", () => {
    const q = allocateQuota(["a", "b", "c"], { a: 10, b: 1000, c: 1000 }, 100);
    expect(Object.fromEntries(q)).toEqual({ a: 10, b: 45, c: 45 });
    const r = allocateQuota(["a", "b"], { a: 3, b: 3 }, 100);
    expect([...r.values()].reduce((x, y) => x + y)).toBe(6);
    const s = allocateQuota(["a", "b", "c"], { a: 50, b: 50, c: 50 }, 2);
    expect([...s.values()].reduce((x, y) => x + y)).toBe(2);
    expect(allocateQuota(["a"], { a: 0 }, 10).get("a")).toBe(0);
    expect(allocateQuota(["a", "b"], { b: 5 }, 10)).toEqual(
      new Map([
        ["a", 0],
        ["b", 5],
      ]),
    );
  });

  it("holds for many random cases", () => {
    for (let i = 0; i < 500; i++) {
      const groups = Array.from({ length: 1 + (i % 5) }, (_, k) => ({
        key: `g${k}`,
        available: (i * 7919 + k * 104729) % 600,
      }));
      const limit = (i * 31) % 1200;
      const sizes = Object.fromEntries(groups.map((g) => [g.key, g.available]));
      const q = allocateQuota(
        groups.map((g) => g.key),
        sizes,
        limit,
      );
      const total = [...q.values()].reduce((a, b) => a + b, 0);
      const available = groups.reduce((a, g) => a + g.available, 0);
      expect(total).toBe(Math.min(limit, available));
      for (const g of groups) expect(q.get(g.key)!).toBeLessThanOrEqual(g.available);
    }
  });
});
