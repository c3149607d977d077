import { describe, expect, it } from "vitest";
import { json } from "../errors";
import { encodedOnce } from "./encoded";
import { createKept, deepFrozen, EVERYONE } from "./kept";

const key = (caller: string, version = 1, ...args: unknown[]) => ({ caller, versions: [version], args });

describe("createKept", () => {
  it("builds once per key and answers the kept value after", async () => {
    const kept = createKept<{ n: number }>({ max: 10 });
    let builds = 0;
    const build = async () => ({ n: ++builds });
    const a = await kept(key(EVERYONE), build);
    expect(await kept(key(EVERYONE), build)).toBe(a);
    expect(builds).toBe(1);
  });

  it("never answers one caller class another's value, nor one version another's", async () => {
    const kept = createKept<string>({ max: 10 });
    expect(await kept(key("org:a"), async () => "a")).toBe("a");
    expect(await kept(key("org:b"), async () => "b")).toBe("b");
    expect(await kept(key("org:a", 2), async () => "a2")).toBe("a2");
    expect(await kept(key("org:a", 1, "?state=x"), async () => "ax")).toBe("ax");
    expect(await kept(key("org:a"), async () => "again")).toBe("a");
  });

  it("shares one build between concurrent first callers", async () => {
    const kept = createKept<number>({ max: 10 });
    let builds = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const build = async () => {
      builds++;
      await gate;
      return 7;
    };
    const all = Array.from({ length: 20 }, () => kept(key(EVERYONE), build));
    release();
    expect(await Promise.all(all)).toEqual(Array(20).fill(7));
    expect(builds).toBe(1);
  });

  it("never keeps a failure: the callers of the failed build get it, the next call builds again", async () => {
    const kept = createKept<number>({ max: 10 });
    const failing = async () => {
      throw new Error("upstream down");
    };
    const both = [kept(key(EVERYONE), failing), kept(key(EVERYONE), failing)];
    for (const p of both) await expect(p).rejects.toThrow("upstream down");
    expect(kept.size()).toBe(0);
    expect(await kept(key(EVERYONE), async () => 3)).toBe(3);
  });

  it("is bounded: the answer used longest ago goes first, and by size when given", async () => {
    const kept = createKept<string>({ max: 2 });
    await kept(key("a"), async () => "a");
    await kept(key("b"), async () => "b");
    await kept(key("a"), async () => "rebuilt"); // a used last
    await kept(key("c"), async () => "c");
    expect(kept.size()).toBe(2);
    expect(await kept(key("a"), async () => "rebuilt")).toBe("a");
    expect(await kept(key("b"), async () => "b again")).toBe("b again");

    const sized = createKept<string>({ max: 10, maxSize: 10, sizeOf: (s) => s.length });
    expect(await sized(key("big"), async () => "x".repeat(11))).toBe("x".repeat(11));
    expect(sized.size()).toBe(0);
    await sized(key("a"), async () => "x".repeat(6));
    await sized(key("b"), async () => "y".repeat(6));
    expect(sized.size()).toBe(1);
  });

  it("lets an answer that depends on the clock go after its time", async () => {
    const kept = createKept<{ ttl: number; n: number }>({ max: 10, ttlOf: (v) => v.ttl });
    let n = 0;
    const build = async () => ({ ttl: 20, n: ++n });
    expect((await kept(key(EVERYONE), build)).n).toBe(1);
    expect((await kept(key(EVERYONE), build)).n).toBe(1);
    await new Promise((r) => setTimeout(r, 40));
    expect((await kept(key(EVERYONE), build)).n).toBe(2);
  });

  it("has a kept value encoded once at the edge, and any other value per request", async () => {
    const kept = deepFrozen({ items: [{ n: 1 }] });
    expect(Object.isFrozen(kept.items[0])).toBe(true);
    const body = encodedOnce(kept);
    expect(body?.toString()).toBe('{"items":[{"n":1}]}');
    expect(encodedOnce(kept)).toBe(body);
    expect(await json(kept).json()).toEqual({ items: [{ n: 1 }] });
    expect(encodedOnce({ items: [] })).toBeUndefined();
    expect(encodedOnce(Object.freeze({ items: [] }))).toBeUndefined(); // frozen, but not a kept value
  });
});
