import { describe, expect, it } from "vitest";
import { createAnswerCache } from "./answer-cache";

/** The kept answers of the audit routes: per version, shared builds, bounded by count and bytes. */
describe("the audit routes' answer cache", () => {
  const counting = () => {
    let builds = 0;
    return {
      get builds() {
        return builds;
      },
      build: (value: unknown, until?: number) => async () => {
        builds++;
        return { value, until };
      },
    };
  };

  it("keeps an answer per key for one version; a newer version empties it; an older caller is answered afresh", async () => {
    const cache = createAnswerCache({ maxEntries: 10, maxBytes: 1 << 20 });
    const c = counting();
    expect((await cache.get(1, "a", 0, c.build(["a1"]))).toString()).toBe('["a1"]');
    expect((await cache.get(1, "a", 0, c.build(["other"]))).toString()).toBe('["a1"]');
    expect((await cache.get(1, "b", 0, c.build(["b1"]))).toString()).toBe('["b1"]');
    expect(c.builds).toBe(2);
    expect((await cache.get(2, "a", 0, c.build(["a2"]))).toString()).toBe('["a2"]');
    expect(cache.size.entries).toBe(1);
    // a caller that read version 1 before version 2 was seen: built for it, not kept
    expect((await cache.get(1, "a", 0, c.build(["stale"]))).toString()).toBe('["stale"]');
    expect((await cache.get(2, "a", 0, c.build(["x"]))).toString()).toBe('["a2"]');
  });

  it("shares one build between identical callers in flight", async () => {
    const cache = createAnswerCache({ maxEntries: 10, maxBytes: 1 << 20 });
    const c = counting();
    const all = await Promise.all(Array.from({ length: 50 }, () => cache.get(1, "k", 0, c.build({ n: 1 }))));
    expect(c.builds).toBe(1);
    expect(new Set(all).size).toBe(1);
  });

  it("holds a clock-bound answer only until its time", async () => {
    const cache = createAnswerCache({ maxEntries: 10, maxBytes: 1 << 20 });
    const c = counting();
    await cache.get(1, "k", 100, c.build("first", 200));
    expect((await cache.get(1, "k", 200, c.build("second", 300))).toString()).toBe('"first"');
    expect((await cache.get(1, "k", 201, c.build("third", 400))).toString()).toBe('"third"');
    // and not before the moment it was built for (a clock set back)
    expect((await cache.get(1, "k", 150, c.build("fourth", 400))).toString()).toBe('"fourth"');
  });

  it("keeps at most maxEntries answers and maxBytes of them, the least recently used going first", async () => {
    const cache = createAnswerCache({ maxEntries: 3, maxBytes: 100 });
    const c = counting();
    for (const k of ["a", "b", "c"]) await cache.get(1, k, 0, c.build(k));
    await cache.get(1, "a", 0, c.build("a")); // a used last
    await cache.get(1, "d", 0, c.build("d")); // b goes
    expect(cache.size.entries).toBe(3);
    const before = c.builds;
    await cache.get(1, "a", 0, c.build("a"));
    expect(c.builds).toBe(before);
    await cache.get(1, "b", 0, c.build("b"));
    expect(c.builds).toBe(before + 1);
    // bytes: an answer larger than the budget is answered and not kept; large ones push others out
    expect((await cache.get(1, "big", 0, c.build("x".repeat(200)))).raw.byteLength).toBe(202);
    expect(cache.size.bytes).toBeLessThanOrEqual(100);
    await cache.get(1, "e", 0, c.build("y".repeat(60)));
    await cache.get(1, "f", 0, c.build("z".repeat(60)));
    expect(cache.size.bytes).toBeLessThanOrEqual(100);
    expect(cache.size.entries).toBeLessThanOrEqual(3);
  });

  it("keeps no failed build", async () => {
    const cache = createAnswerCache({ maxEntries: 3, maxBytes: 100 });
    await expect(
      cache.get(1, "k", 0, async () => {
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    expect((await cache.get(1, "k", 0, async () => ({ value: 1 }))).toString()).toBe("1");
  });
});
