import { describe, expect, it } from "vitest";
import { createAuditLog } from "../audit/log";
import { openDatabase } from "../storage/database";
import { createSqliteGraphStore } from "./sqlite-store";
import { createVersionedCache, createVersionedMap, createVersionedValue } from "./versioned-cache";
import { openSqliteRelational } from "../storage/relational/sqlite";

/** Answers kept per graph version on the real embedded store: a write empties them, a burst builds once. */
describe("the per-version answer cache", () => {
  it("builds once for a burst, answers from the cache, and builds again after a graph write", async () => {
    const db = openDatabase(":memory:");
    const store = createSqliteGraphStore(db, await createAuditLog(openSqliteRelational(db), db));
    const cached = createVersionedCache(store);
    let builds = 0;
    const build = async () => {
      builds++;
      return { nodes: await store.countNodes(), build: builds };
    };
    const burst = await Promise.all(Array.from({ length: 20 }, () => cached("k", build)));
    expect(builds).toBe(1);
    expect(new Set(burst).size).toBe(1); // the same encoded body for every caller
    expect(JSON.parse(burst[0].toString())).toEqual({ nodes: 0, build: 1 });
    expect(await cached("k", build)).toBe(burst[0]);
    expect(JSON.parse((await cached("other", build)).toString()).build).toBe(2);

    await store.mutate(
      [{ op: "createNode", node: { id: "dataset-a", label: "HealthDataset", layer: "l2", properties: {} } }],
      { action: "test.create", actor: "tester", target: "dataset-a", kind: "catalogue" },
    );
    const after = await cached("k", build);
    expect(JSON.parse(after.toString())).toEqual({ nodes: 1, build: 3 });
    db.close();
  });

  it("keeps no answer whose build saw an older version than the store now has", async () => {
    const db = openDatabase(":memory:");
    const store = createSqliteGraphStore(db, await createAuditLog(openSqliteRelational(db), db));
    const cached = createVersionedCache(store);
    let builds = 0;
    const first = await cached("k", async () => {
      builds++;
      // a write lands while this answer is being built
      await store.mutate(
        [
          {
            op: "createNode",
            node: { id: "dataset-b", label: "HealthDataset", layer: "l2", properties: {} },
          },
        ],
        { action: "test.create", actor: "tester", target: "dataset-b", kind: "catalogue" },
      );
      return { build: builds };
    });
    expect(JSON.parse(first.toString())).toEqual({ build: 1 });
    const second = await cached("k", async () => ({ build: ++builds }));
    expect(JSON.parse(second.toString())).toEqual({ build: 2 });
    db.close();
  });
});

/** One value per graph version on the real embedded store (the catalogue's list, the overview's counts). */
describe("the per-version value", () => {
  it("is built once per version, shared by a burst, built again after a write, and not kept when it fails", async () => {
    const db = openDatabase(":memory:");
    const store = createSqliteGraphStore(db, await createAuditLog(openSqliteRelational(db), db));
    let builds = 0;
    let fail = false;
    const value = createVersionedValue(store, async () => {
      builds++;
      if (fail) throw new Error("store away");
      return { nodes: await store.countNodes(), build: builds };
    });
    const burst = await Promise.all(Array.from({ length: 20 }, () => value()));
    expect(builds).toBe(1);
    expect(new Set(burst).size).toBe(1);
    expect(burst[0]).toEqual({ nodes: 0, build: 1 });

    await store.mutate(
      [{ op: "createNode", node: { id: "dataset-a", label: "HealthDataset", layer: "l2", properties: {} } }],
      { action: "test.create", actor: "tester", target: "dataset-a", kind: "catalogue" },
    );
    fail = true;
    await expect(value()).rejects.toThrow("store away");
    fail = false;
    expect(await value()).toEqual({ nodes: 1, build: 3 });
    expect(await value()).toEqual({ nodes: 1, build: 3 });
    expect(builds).toBe(3);
    db.close();
  });
});

/** Values per key and graph version (a node read by the patient views, whether a node exists). */
describe("the per-version map", () => {
  it("keeps a null answer, forgets every key after a write, and keeps no failed build", async () => {
    const db = openDatabase(":memory:");
    const store = createSqliteGraphStore(db, await createAuditLog(openSqliteRelational(db), db));
    const nodes = createVersionedMap<string | null>(store, 2);
    let reads = 0;
    let fail = false;
    const read = (id: string) => async () => {
      reads++;
      if (fail) throw new Error("store away");
      return (await store.getNode(id))?.label ?? null;
    };
    expect(
      await Promise.all([nodes("dataset-a", read("dataset-a")), nodes("dataset-a", read("dataset-a"))]),
    ).toEqual([null, null]);
    expect(await nodes("dataset-a", read("dataset-a"))).toBeNull(); // "not there" is kept too
    expect(reads).toBe(1);

    await store.mutate(
      [{ op: "createNode", node: { id: "dataset-a", label: "HealthDataset", layer: "l2", properties: {} } }],
      { action: "test.create", actor: "tester", target: "dataset-a", kind: "catalogue" },
    );
    fail = true;
    await expect(nodes("dataset-a", read("dataset-a"))).rejects.toThrow("store away");
    fail = false;
    expect(await nodes("dataset-a", read("dataset-a"))).toBe("HealthDataset");
    expect(reads).toBe(3);
    // at most `maxEntries` keys: the oldest goes first
    await nodes("b", read("b"));
    await nodes("c", read("c"));
    await nodes("dataset-a", read("dataset-a"));
    expect(reads).toBe(6);
    db.close();
  });
});
