import { sql } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { errorResponse, STORE_BUSY, STORE_CONFLICT, STORE_FULL } from "./errors";

/**
 * The error model meets the store's own failures, raised for real by the driver (no made-up error
 * objects): a unique key taken by a concurrent writer is 409 (a lost race, not a server fault), a
 * lock that cannot be had in time is 503 busy, a write refused by a read-only transaction is 503.
 * Nothing of the failed write is kept.
 */
async function failureOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected the store to refuse");
}

describe.each(storeDialects())("store failures as answers on %s", (dialect) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  async function table() {
    store = await openTestStore(dialect);
    await store.rel.db.schema
      .createTable("race_probe")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("v", "text")
      .execute();
    await store.rel.db.insertInto("race_probe").values({ id: "a", v: "first" }).execute();
  }

  it("a unique key taken in between answers 409 JSON and keeps the first write", async () => {
    await table();
    const e = await failureOf(() =>
      store.rel.tx((tx) => tx.insertInto("race_probe").values({ id: "a", v: "second" }).execute()),
    );
    vi.spyOn(console, "error").mockImplementationOnce(() => {}); // a lost race is logged
    const res = errorResponse(e);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: STORE_CONFLICT });
    const rows = await store.rel.db.selectFrom("race_probe").selectAll().execute();
    expect(rows).toEqual([{ id: "a", v: "first" }]);
  });

  it.runIf(dialect === "postgres")("a row lock not had within lock_timeout answers 503 busy", async () => {
    await table();
    const other = await store.another();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const holder = other.tx(async (tx) => {
      await sql`SELECT * FROM race_probe WHERE id = 'a' FOR UPDATE`.execute(tx);
      locked();
      await held;
    });
    await lockTaken;
    const e = await failureOf(() =>
      store.rel.tx(async (tx) => {
        await sql`SET LOCAL lock_timeout = '100ms'`.execute(tx);
        await tx.updateTable("race_probe").set({ v: "changed" }).where("id", "=", "a").execute();
      }),
    );
    release();
    await holder;
    const res = errorResponse(e);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({ error: STORE_BUSY });
    const rows = await store.rel.db.selectFrom("race_probe").selectAll().execute();
    expect(rows).toEqual([{ id: "a", v: "first" }]);
  });

  it.runIf(dialect === "postgres")(
    "a write in a read-only transaction answers 503 and writes nothing",
    async () => {
      await table();
      const e = await failureOf(() =>
        store.rel.tx(async (tx) => {
          await sql`SET TRANSACTION READ ONLY`.execute(tx);
          await tx.insertInto("race_probe").values({ id: "b", v: "x" }).execute();
        }),
      );
      const res = errorResponse(e);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: STORE_FULL });
      expect(await store.rel.db.selectFrom("race_probe").select("id").execute()).toEqual([{ id: "a" }]);
    },
  );
});
