import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { FINDING } from "./machines";
import { move } from "./step";
import { createRecordStore, type StoredRecord } from "./store";

const at = new Date("2026-03-02T10:00:00Z");
const actor = { username: "regulator", role: "HDAB_AUTHORITY" };
const rec = (id: string, over: Partial<StoredRecord> = {}): StoredRecord => ({
  id,
  kind: "finding",
  state: "OPEN",
  organisation: "Clinic",
  parentId: null,
  createdAt: at.toISOString(),
  updatedAt: at.toISOString(),
  data: { n: id },
  ...over,
});

describe.each(storeDialects())("access-body record store on %s", (dialect) => {
  let t: TestStore;
  afterEach(() => t?.close());

  async function open() {
    t = await openTestStore(dialect);
    const audit = await createAuditLog(t.rel);
    return { audit, store: await createRecordStore(t.rel, audit) };
  }

  it("creates, updates with the concurrent-change check, keeps history, lists by filter and counts", async () => {
    const { store, audit } = await open();
    await store.tx(async (w) => {
      await w.create(rec("FND-2026-0002"), { event: "open", actor, at });
      await w.create(rec("FND-2026-0001", { organisation: "Other" }), { event: "open", actor, at });
      await w.create(rec("PRM-1", { kind: "permit", state: "ACTIVE", parentId: "FND-2026-0001" }), {
        event: "issue",
        actor,
        at,
      });
    });
    const later = new Date("2026-03-03T10:00:00Z");
    await store.tx((w) =>
      w.update(
        { ...rec("FND-2026-0002"), state: "CLOSED" },
        { event: "close", fromState: "OPEN", actor, at: later },
      ),
    );
    await expect(
      store.tx((w) =>
        w.update(
          { ...rec("FND-2026-0002"), state: "RESPONDED" },
          { event: "respond", fromState: "OPEN", actor, at: later },
        ),
      ),
    ).rejects.toThrow("record FND-2026-0002 changed concurrently (CLOSED, expected OPEN)");
    expect(await store.get("FND-2026-0002")).toMatchObject({
      state: "CLOSED",
      updatedAt: later.toISOString(),
    });
    expect(await store.get("nope")).toBeUndefined();
    expect((await store.list("finding")).map((r) => r.id)).toEqual(["FND-2026-0001", "FND-2026-0002"]);
    expect((await store.list("finding", { organisation: "Other" })).map((r) => r.id)).toEqual([
      "FND-2026-0001",
    ]);
    expect((await store.list("finding", { state: "CLOSED" })).map((r) => r.id)).toEqual(["FND-2026-0002"]);
    expect((await store.list("permit", { parentId: "FND-2026-0001" })).map((r) => r.id)).toEqual(["PRM-1"]);
    expect(await store.count()).toBe(3);
    const h = await store.history("FND-2026-0002");
    expect(h.map((x) => [x.event, x.fromState, x.toState])).toEqual([
      ["open", null, "OPEN"],
      ["close", "OPEN", "CLOSED"],
    ]);
    expect((await store.allHistory()).length).toBe(4);
    expect(await audit.count()).toBe(4);
    expect((await audit.verify()).ok).toBe(true);
  });

  it("finds ids by prefix with LIKE's wildcards escaped, and keeps meta values", async () => {
    const { store } = await open();
    await store.tx(async (w) => {
      for (const id of ["A_B-1", "AXB-2", "A%B-3", "a_b-4", "B-5"])
        await w.create(rec(id), { event: "open", actor, at });
    });
    expect((await store.idsWithPrefix("A_B-")).sort()).toEqual(["A_B-1", "a_b-4"]);
    expect(await store.idsWithPrefix("A%B")).toEqual(["A%B-3"]);
    expect(await store.meta("seeded")).toBeUndefined();
    await store.tx((w) => w.setMeta("seeded", "1"));
    await store.tx((w) => w.setMeta("seeded", "2"));
    expect(await store.meta("seeded")).toBe("2");
  });

  it("commits a record with its history and audit entry, or none of them", async () => {
    const { store, audit } = await open();
    await expect(
      store.tx(async (w) => {
        await w.create(rec("FND-1"), { event: "open", actor, at });
        throw new Error("refused after the audit entry");
      }),
    ).rejects.toThrow("refused");
    expect(await store.get("FND-1")).toBeUndefined();
    expect(await store.allHistory()).toEqual([]);
    expect(await audit.count()).toBe(0);
  });

  it("leaves exactly one transition when two instances move the same record at once", async () => {
    const { store } = await open();
    await store.tx((w) => w.create(rec("FND-1"), { event: "open", actor, at }));
    const other = await t.another();
    const store2 = await createRecordStore(other, await createAuditLog(other));
    // a transition as step.ts writes it: read in the transaction, check the machine, write
    const close = (s: typeof store) =>
      s.tx(async (w) => move(w, FINDING, (await w.get("FND-1"))!, "close", {}, actor, at));
    const results = await Promise.allSettled([close(store), close(store2), close(store), close(store2)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const history = await store.history("FND-1");
    expect(history).toHaveLength(2);
    expect(history[1]).toMatchObject({ fromState: "OPEN", toState: "CLOSED" });
    expect((await store.get("FND-1"))!.state).toBe("CLOSED");
  });
});
