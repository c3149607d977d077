import { describe, expect, it } from "vitest";
import { createReadCache } from "./read-cache";
import { UpstreamError } from "./upstream-http";

/** The read cache's answer without a promise (peek): what a read would get from the cache now, or nothing. */
describe("read cache: peek", () => {
  function cache(ttlMs = 1000) {
    const clock = { now: 0, version: 0 };
    const c = createReadCache({
      name: "connector",
      ttlMs,
      timeoutMs: 1000,
      now: () => clock.now,
      version: () => clock.version,
    });
    return { c, clock };
  }
  const list = () => Promise.resolve([{ "@id": "a" }]);

  it("is the kept answer while it is fresh, the very array a read gets, and counts a hit", async () => {
    const { c, clock } = cache();
    expect(c.peek("k")).toBeUndefined();
    const read = await c.read("k", undefined, list);
    expect(c.peek("k")).toBe(read);
    expect(c.stats.hits).toBe(1);
    clock.now = 1000;
    expect(c.peek("k")).toBe(read);
    clock.now = 1001;
    expect(c.peek("k")).toBeUndefined();
  });

  it("is nothing after a write through this server or a change of the upstream's change counter", async () => {
    const { c, clock } = cache();
    await c.read("k", undefined, list);
    c.invalidate();
    expect(c.peek("k")).toBeUndefined();
    await c.read("k", undefined, list);
    clock.version++;
    expect(c.peek("k")).toBeUndefined();
  });

  it("is nothing for a read in flight, a failed read, or a cache that keeps nothing", async () => {
    const { c } = cache();
    let resolve!: (v: unknown[]) => void;
    const pending = c.read("k", undefined, () => new Promise<unknown[]>((r) => (resolve = r)));
    expect(c.peek("k")).toBeUndefined();
    resolve([]);
    await pending;
    await c.read("f", undefined, () => Promise.reject(new Error("down"))).catch(() => {});
    expect(c.peek("f")).toBeUndefined();
    const none = cache(0).c;
    await none.read("k", undefined, list);
    expect(none.peek("k")).toBeUndefined();
  });
});

describe("read cache: a kept answer", () => {
  it("is read only all the way down, so no reader changes what the next one gets", async () => {
    const c = createReadCache({
      name: "connector",
      ttlMs: 1000,
      timeoutMs: 1000,
      now: () => 0,
      version: () => 0,
    });
    const read = (await c.read("k", undefined, () =>
      Promise.resolve([{ "@id": "a", policy: { permission: [{ action: "use" }] } }]),
    )) as { "@id": string; policy: { permission: { action: string }[] } }[];
    expect(() => (read[0]["@id"] = "b")).toThrow(TypeError);
    expect(() => read[0].policy.permission.push({ action: "share" })).toThrow(TypeError);
    expect(await c.read("k", undefined, () => Promise.resolve([]))).toEqual([
      { "@id": "a", policy: { permission: [{ action: "use" }] } },
    ]);
  });
});

describe("read cache: the upstream's 404", () => {
  it("is kept as an answer is (thrown to every reader until a change), a failure never", async () => {
    const clock = { now: 0, version: 0 };
    const c = createReadCache({
      name: "connector",
      ttlMs: 1000,
      timeoutMs: 1000,
      now: () => clock.now,
      version: () => clock.version,
    });
    let calls = 0;
    const missing = () => {
      calls++;
      return Promise.reject(new UpstreamError("connector", "status", "connector answered HTTP 404", 404));
    };
    await expect(c.read("n", undefined, missing)).rejects.toMatchObject({ status: 404 });
    await expect(c.read("n", undefined, missing)).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(1);
    expect(c.peek("n")).toBeUndefined(); // a kept 404 is thrown by read, never peeked
    c.invalidate(); // a write through this server
    await expect(c.read("n", undefined, missing)).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(2);
    clock.version++; // a change in the embedded dataspace
    await expect(c.read("n", undefined, missing)).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(3);
    clock.now = 2000; // no longer fresh
    await expect(c.read("n", undefined, missing)).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(4);
    let failures = 0;
    const down = () => {
      failures++;
      return Promise.reject(new UpstreamError("connector", "status", "connector answered HTTP 500", 500));
    };
    await expect(c.read("f", undefined, down)).rejects.toMatchObject({ status: 500 });
    await expect(c.read("f", undefined, down)).rejects.toMatchObject({ status: 500 });
    expect(failures).toBe(2);
  });
});

describe("read cache: an answer that must be fresh (share)", () => {
  const make = (version?: () => number) =>
    createReadCache({ name: "connector", ttlMs: 1000, timeoutMs: 1000, now: () => 0, version });
  const counting = () => {
    let n = 0;
    return { load: () => Promise.resolve({ "@id": `catalog-${++n}` }), calls: () => n };
  };

  it("is asked upstream at each request when the cache does not follow the upstream's changes", async () => {
    const c = make();
    const { load, calls } = counting();
    expect(await c.share("cat", undefined, load)).toEqual({ "@id": "catalog-1" });
    expect(await c.share("cat", undefined, load)).toEqual({ "@id": "catalog-2" });
    expect(calls()).toBe(2);
  });

  it("is kept until the next change when the cache follows each change (the embedded dataspace)", async () => {
    let version = 0;
    const c = make(() => version);
    const { load, calls } = counting();
    const first = await c.share("cat", undefined, load);
    expect(await c.share("cat", undefined, load)).toBe(first);
    expect(calls()).toBe(1);
    version++; // a change in the embedded dataspace, the provider's included
    expect(await c.share("cat", undefined, load)).toEqual({ "@id": "catalog-2" });
  });
});
