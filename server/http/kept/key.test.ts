import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inputVersions, keyText as key } from "./key";

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

describe("keyText", () => {
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

describe("inputVersions", () => {
  it("names each shared input by identity, and refuses a caller's own (unfrozen) array", () => {
    const a = Object.freeze([1]);
    const b = Object.freeze([1]);
    expect(inputVersions([a, null])).toEqual(inputVersions([a, null]));
    expect(inputVersions([a])).not.toEqual(inputVersions([b]));
    expect(inputVersions([a, "x"])).not.toEqual(inputVersions([a, "y"]));
    expect(inputVersions([a, [1]])).toBeUndefined();
  });
});
