import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { cacheKey as key, deepFrozen } from "./cache-key";

const part = fc.oneof(
  fc.string(),
  fc.constant(undefined),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
  fc.integer(),
);
const read = fc.tuple(
  fc.constantFrom("contexts", "assets", "negotiations", "tm"),
  fc.array(part, { maxLength: 3 }),
);

describe("cacheKey", () => {
  it("is the same for the same read and different for different reads (ids with the separator included)", () => {
    fc.assert(
      fc.property(read, read, ([kindA, partsA], [kindB, partsB]) => {
        const same = JSON.stringify([kindA, ...partsA]) === JSON.stringify([kindB, ...partsB]);
        // undefined and null encode alike in the JSON reference; the key tells them apart, which is finer
        if (same && partsA.every((p) => p !== undefined) && partsB.every((p) => p !== undefined))
          expect(key(kindA, ...partsA)).toBe(key(kindB, ...partsB));
        if (!same) expect(key(kindA, ...partsA)).not.toBe(key(kindB, ...partsB));
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps apart ids that a plain separator would join", () => {
    expect(key("negotiations", "a|1:b")).not.toBe(key("negotiations", "a", "b"));
    expect(key("assets", "p", undefined)).not.toBe(key("assets", "p"));
    expect(key("assets", "p", { q: "x" })).toBe(key("assets", "p", { q: "x" }));
  });
});

describe("cacheKey of a deeply frozen part", () => {
  it("is the key of the same part unfrozen, and is made once per object", () => {
    fc.assert(
      fc.property(read, ([kind, parts]) => {
        const frozen = parts.map((p) => deepFrozen(structuredClone(p)));
        expect(key(kind, ...frozen)).toBe(key(kind, ...parts));
        expect(key(kind, ...frozen)).toBe(key(kind, ...parts));
      }),
      { numRuns: 500 },
    );
    const request = deepFrozen({ querySpec: { limit: 100 }, ids: ["a"] });
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      key("catalog", request);
      key("catalog", request);
      expect(stringify.mock.calls.filter(([v]) => v === request)).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it("freezes nested objects and arrays too", () => {
    const v = deepFrozen({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(v.a)).toBe(true);
    expect(Object.isFrozen(v.a.b)).toBe(true);
    expect(Object.isFrozen(v.a.b[1])).toBe(true);
  });
});
