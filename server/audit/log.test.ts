import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "./log";
import { GENESIS_HASH } from "./model";

describe.each(storeDialects())("audit log on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  it("chains entries by hash and verifies the chain", async () => {
    store = await openTestStore(dialect);
    const log = await createAuditLog(store.rel);
    const a = await log.append({
      action: "catalogue.create",
      actor: "clinic",
      target: "ds-1",
      kind: "catalogue",
    });
    const b = await log.append({
      action: "catalogue.delete",
      actor: "admin",
      target: "ds-1",
      kind: "catalogue",
      outcome: "success",
    });
    expect(a.prevHash).toBe(GENESIS_HASH);
    expect(b.prevHash).toBe(a.hash);
    expect(b.seq).toBe(a.seq + 1);
    expect(await log.verify()).toEqual({ ok: true, checked: 2 });
    expect(await log.list({ limit: 1 })).toEqual([b]);
    expect(await log.list({ actor: "clinic" })).toEqual([a]);
    expect(await log.list({ q: "DS-1", kinds: ["catalogue"] })).toEqual([b, a]);
    expect(await log.list({ kinds: [] })).toEqual([]);
    expect(await log.count()).toBe(2);
  });

  it("refuses updates in the database and reports the first broken link when rows are tampered with", async () => {
    store = await openTestStore(dialect);
    const log = await createAuditLog(store.rel);
    for (let i = 0; i < 5; i++) await log.append({ action: "x", actor: "a", target: `t${i}`, kind: "k" });
    const { sql } = await import("kysely");
    await expect(
      sql`UPDATE audit_entries SET actor = 'mallory' WHERE seq = 3`.execute(store.rel.db),
    ).rejects.toThrow(/append-only/);
    // an attacker with file access drops the trigger and edits an entry
    await sql`DROP TRIGGER audit_entries_no_update ${sql.raw(dialect === "postgres" ? "ON audit_entries" : "")}`.execute(
      store.rel.db,
    );
    await sql`UPDATE audit_entries SET actor = 'mallory' WHERE seq = 3`.execute(store.rel.db);
    expect(await log.verify()).toMatchObject({
      ok: false,
      checked: 2,
      firstBroken: { seq: 3, reason: "entry content does not match its hash" },
    });
    await sql`DROP TRIGGER audit_entries_no_delete ${sql.raw(dialect === "postgres" ? "ON audit_entries" : "")}`.execute(
      store.rel.db,
    );
    await sql`DELETE FROM audit_entries WHERE seq = 3`.execute(store.rel.db);
    expect(await log.verify()).toMatchObject({
      ok: false,
      firstBroken: { seq: 4, reason: "entry 3 is missing" },
    });
  });

  it("commits an entry with the write it records, or neither", async () => {
    store = await openTestStore(dialect);
    const { rel } = store;
    const log = await createAuditLog(rel);
    await rel.migrate("audit-test-things", async (m) => {
      await m.schema
        .createTable("things")
        .addColumn("id", "text", (c) => c.primaryKey())
        .execute();
    });
    await expect(
      rel.tx(async (tx) => {
        await tx.insertInto("things").values({ id: "a" }).execute();
        await log.append({ action: "thing.create", actor: "x", target: "a", kind: "k" }, { tx });
        throw new Error("refused after the audit entry");
      }),
    ).rejects.toThrow("refused");
    expect(await rel.db.selectFrom("things").selectAll().execute()).toEqual([]);
    expect(await log.count()).toBe(0);
    await rel.tx(async (tx) => {
      await tx.insertInto("things").values({ id: "b" }).execute();
      await log.append({ action: "thing.create", actor: "x", target: "b", kind: "k" }, { tx });
    });
    expect(await log.count()).toBe(1);
  });

  it("keeps one chain when two instances append at once", async () => {
    store = await openTestStore(dialect);
    const a = await createAuditLog(store.rel);
    const b = await createAuditLog(await store.another());
    const writes = Array.from({ length: 120 }, (_, i) =>
      (i % 2 ? a : b).append({ action: "x", actor: i % 2 ? "A" : "B", target: `t${i}`, kind: "k" }),
    );
    const entries = await Promise.all(writes);
    expect(new Set(entries.map((e) => e.seq)).size).toBe(120);
    expect(await a.verify()).toEqual({ ok: true, checked: 120 });
    expect(await b.verify()).toEqual({ ok: true, checked: 120 });
  });

  it("purges old entries of a kind, keeps tombstones and a verifiable chain", async () => {
    store = await openTestStore(dialect);
    const log = await createAuditLog(store.rel);
    const old = new Date("2020-01-01T00:00:00Z");
    for (let i = 0; i < 7; i++)
      await log.append(
        { action: "x", actor: "a", target: `t${i}`, kind: i % 2 ? "old" : "keep" },
        { at: old },
      );
    await log.append({ action: "x", actor: "a", target: "new", kind: "old" });
    expect(await log.countBefore("old", "2021-01-01T00:00:00Z")).toBe(3);
    expect(await log.purge("old", "2021-01-01T00:00:00Z")).toBe(3);
    expect(await log.verify()).toEqual({ ok: true, checked: 5 });
    expect(await log.kinds()).toEqual([
      { kind: "keep", entries: 4, oldest: old.toISOString(), purged: 0 },
      { kind: "old", entries: 1, oldest: expect.any(String), purged: 3 },
    ]);
    const next = await log.append({ action: "after", actor: "a", target: "t", kind: "keep" });
    expect(next.seq).toBe(9);
    expect(await log.verify()).toEqual({ ok: true, checked: 6 });
  });

  it("keeps the counts per kind up to date across appends, purges and another instance's appends", async () => {
    store = await openTestStore(dialect);
    const log = await createAuditLog(store.rel, store.db);
    const other = await createAuditLog(await store.another());
    // a log made now counts the whole table: what the kept counts must equal
    const counted = async () => (await createAuditLog(store.rel)).kinds();
    const old = new Date("2020-01-01T00:00:00Z");
    await log.append({ action: "x", actor: "a", target: "1", kind: "keep" });
    expect(await log.kinds()).toEqual(await counted());
    await log.append({ action: "x", actor: "a", target: "2", kind: "old" }, { at: old });
    await other.append({ action: "x", actor: "b", target: "3", kind: "keep" }, { at: old });
    await store.rel.tx(async (tx) => {
      for (let i = 0; i < 3; i++)
        await log.append({ action: "x", actor: "a", target: `t${i}`, kind: "new" }, { tx });
    });
    expect(await log.kinds()).toEqual(await counted());
    expect((await log.kinds()).find((k) => k.kind === "keep")).toEqual({
      kind: "keep",
      entries: 2,
      oldest: old.toISOString(),
      purged: 0,
    });
    expect(await other.purge("old", "2021-01-01T00:00:00Z")).toBe(1);
    expect(await log.kinds()).toEqual(await counted());
    expect((await log.kinds()).find((k) => k.kind === "old")).toEqual({
      kind: "old",
      entries: 0,
      oldest: null,
      purged: 1,
    });
    await log.append({ action: "x", actor: "a", target: "4", kind: "old" });
    const [a, b] = await Promise.all([log.kinds(), log.kinds()]);
    expect(a).toEqual(await counted());
    expect(b).toEqual(a);
  });

  it("on the embedded store, appends a batch in order after a purged head, one head read for the batch", async () => {
    store = await openTestStore(dialect);
    if (!store.db) return; // PostgreSQL: appendSyncBatch is the embedded store's
    const log = await createAuditLog(store.rel, store.db);
    const old = new Date("2020-01-01T00:00:00Z");
    await log.append({ action: "x", actor: "a", target: "kept", kind: "keep" }, { at: old });
    await log.append({ action: "x", actor: "a", target: "gone", kind: "old" }, { at: old });
    await log.purge("old", "2021-01-01T00:00:00Z"); // the chain's head is now a tombstone
    const at = new Date("2026-11-27T04:00:00Z");
    const batch = Array.from({ length: 4 }, (_, i) => ({
      input: { action: "federated.query", actor: "researcher", target: `q${i}`, kind: "insight" },
      at,
    }));
    const written = store.rel.tx(async () => log.appendSyncBatch(batch));
    expect((await written).map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(log.appendSyncBatch([])).toEqual([]);
    expect(await log.verify()).toEqual({ ok: true, checked: 5 });
    expect((await log.append({ action: "after", actor: "a", target: "t", kind: "keep" })).seq).toBe(7);
    expect(await log.verify()).toEqual({ ok: true, checked: 6 });
  });
});
