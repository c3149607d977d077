import { describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { chainKey, entryAfter, entryId, hashEntry, legacyHashEntry } from "./chain";
import { GENESIS_HASH } from "./model";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** the milliseconds since 1970 that a version 7 UUID starts with */
const msOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

const key = chainKey(Buffer.alloc(32, 7));

describe("audit entry ids", () => {
  it("are RFC 9562 version 7 UUIDs, unique, and carry the time they were made", () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, entryId);
    const after = Date.now();
    expect(ids.every((id) => V7.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0], ids.at(-1)!]) {
      expect(msOf(id)).toBeGreaterThanOrEqual(before);
      expect(msOf(id)).toBeLessThanOrEqual(after);
    }
  });

  it("grow with time: an id made a millisecond later sorts after every earlier one", async () => {
    const first = Array.from({ length: 500 }, entryId);
    await new Promise((r) => setTimeout(r, 2));
    const later = Array.from({ length: 500 }, entryId);
    expect(later.every((id) => first.every((earlier) => id > earlier))).toBe(true);
  });

  it("are hashed into the chain like any other field", () => {
    const first = entryAfter(
      undefined,
      { action: "a", actor: "u", target: "t", kind: "insight" },
      new Date(0),
      key,
    );
    expect(first).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, outcome: "success" });
    expect(V7.test(first.id)).toBe(true);
    const { hash, ...rest } = first;
    expect(hashEntry(rest, key)).toBe(hash);
    expect(hashEntry({ ...rest, id: entryId() }, key)).not.toBe(hash);
    const second = entryAfter(
      first,
      { action: "b", actor: "u", target: "t", kind: "insight" },
      new Date(1),
      key,
    );
    expect(second).toMatchObject({ seq: 2, prevHash: hash });
  });
});

describe("the keyed chain (decision 0044)", () => {
  it("hashes an entry as HMAC-SHA256 under the key: without the key its hash cannot be made again", () => {
    const e = entryAfter(undefined, { action: "a", actor: "u", target: "t", kind: "k" }, new Date(0), key);
    const { hash, ...rest } = e;
    const canonical = JSON.stringify([
      rest.seq,
      rest.id,
      rest.action,
      rest.actor,
      rest.target,
      rest.outcome,
      rest.kind,
      rest.timestamp,
      rest.prevHash,
    ]);
    expect(hash).toBe(createHmac("sha256", Buffer.alloc(32, 7)).update(canonical).digest("hex"));
    // the plain hash of before, and another key, give other hashes
    expect(legacyHashEntry(rest)).not.toBe(hash);
    expect(hashEntry(rest, chainKey(Buffer.alloc(32, 8)))).not.toBe(hash);
  });

  it("refuses a key shorter than 32 bytes", () => {
    expect(() => chainKey("too short")).toThrow("the audit key must be at least 32 bytes");
  });
});

describe("the audit batch thread's bundle", () => {
  it("takes no HTTP module (server/http)", async () => {
    const { build } = await import("esbuild");
    const { metafile } = await build({
      entryPoints: ["server/audit/batch-worker.ts"],
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(Object.keys(metafile.inputs).filter((f) => f.startsWith("server/http/"))).toEqual([]);
  });
});
