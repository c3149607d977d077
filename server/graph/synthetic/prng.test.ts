import { Prng, dayOf, isoDate, isoDateTime } from "./prng";

function sequence(rng: Prng, n: number): number[] {
  return Array.from({ length: n }, () => rng.nextUint32());
}

describe("Prng", () => {
  it("repeats the same sequence for the same seed words", () => {
    expect(sequence(new Prng(42, 1, 7), 50)).toEqual(sequence(new Prng(42, 1, 7), 50));
  });

  it("gives different sequences for different seeds or streams", () => {
    const base = sequence(new Prng(42, 1, 7), 20);
    expect(sequence(new Prng(43, 1, 7), 20)).not.toEqual(base);
    expect(sequence(new Prng(42, 1, 8), 20)).not.toEqual(base);
  });

  it("keeps its helpers within their ranges", () => {
    const rng = new Prng(1);
    for (let i = 0; i < 2000; i++) {
      const f = rng.next();
      expect(f).toBeGreaterThanOrEqual(0);
      expect(f).toBeLessThan(1);
      const n = rng.int(3, 5);
      expect([3, 4, 5]).toContain(n);
      const x = rng.normal(10, 2, 8, 12);
      expect(x).toBeGreaterThanOrEqual(8);
      expect(x).toBeLessThanOrEqual(12);
    }
  });

  it("picks by weight and never picks a zero weight", () => {
    const rng = new Prng(2);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 3000; i++)
      counts[rng.weighted(["a", "b", "c"] as const, (k) => ({ a: 1, b: 3, c: 0 })[k])]++;
    expect(counts.c).toBe(0);
    expect(counts.b / counts.a).toBeGreaterThan(2.3);
    expect(counts.b / counts.a).toBeLessThan(3.9);
  });

  it("samples distinct items without replacement", () => {
    const rng = new Prng(3);
    const sample = rng.weightedSample([1, 2, 3, 4, 5], 4, () => 1);
    expect(new Set(sample).size).toBe(4);
    expect(rng.weightedSample([1, 2], 5, () => 1)).toHaveLength(2);
  });

  it("draws version-4 UUIDs", () => {
    const rng = new Prng(4);
    for (let i = 0; i < 100; i++) {
      expect(rng.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});

describe("dates", () => {
  it("converts between day numbers and ISO dates", () => {
    expect(isoDate(dayOf("2024-02-29"))).toBe("2024-02-29");
    expect(isoDateTime(dayOf("2024-02-29"), 9 * 60 + 5)).toBe("2024-02-29T09:05:00Z");
    expect(isoDateTime(dayOf("2024-02-29"), 24 * 60 + 1)).toBe("2024-03-01T00:01:00Z");
  });
});
