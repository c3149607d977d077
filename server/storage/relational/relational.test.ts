import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../database";
import { openTestStore, storeDialects, type TestStore } from "../../../tests/support/relational";
import { openSqliteRelational } from "./sqlite";

const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.each(storeDialects())("relational store port on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  it("applies a migration once, also when two instances start at once", async () => {
    store = await openTestStore(dialect);
    const other = await store.another();
    let runs = 0;
    const up = async (m: typeof store.rel.db) => {
      runs++;
      await m.schema
        .createTable("once")
        .addColumn("id", "text", (c) => c.primaryKey())
        .execute();
    };
    await Promise.all([store.rel.migrate("once-1", up), other.migrate("once-1", up)]);
    await store.rel.migrate("once-1", up);
    expect(runs).toBe(1);
    const names = await store.rel.db
      .selectFrom("migrations")
      .select("name")
      .where("name", "=", "once-1")
      .execute();
    expect(names).toHaveLength(1);
  });

  it("commits all of a transaction or none of it", async () => {
    store = await openTestStore(dialect);
    const { rel } = store;
    await rel.migrate("things-1", async (m) => {
      await m.schema
        .createTable("things")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("n", "integer", (c) => c.notNull())
        .execute();
    });
    await expect(
      rel.tx(async (tx) => {
        await tx.insertInto("things").values({ id: "a", n: 1 }).execute();
        await tx.insertInto("things").values({ id: "a", n: 2 }).execute();
      }),
    ).rejects.toThrow();
    expect(await rel.db.selectFrom("things").selectAll().execute()).toEqual([]);
    await rel.tx(async (tx) => {
      await tx.insertInto("things").values({ id: "a", n: 1 }).execute();
      await rel.within(tx, (t) => t.insertInto("things").values({ id: "b", n: 2 }).execute());
    });
    const count = await rel.db
      .selectFrom("things")
      .select((eb) => eb.fn.countAll().as("c"))
      .executeTakeFirstOrThrow();
    // a count is a number on both stores
    expect(count.c).toBe(2);
  });

  it("tells every instance of a change once the write commits, and not before", async () => {
    store = await openTestStore(dialect);
    const a = store.rel;
    const b = await store.another();
    const seen: number[] = [];
    b.changes.subscribe("things", (v) => seen.push(v));
    const before = b.changes.version("things");
    await a.tx(async (tx) => {
      await a.changes.bump(tx, "things");
      // not visible while the transaction is open
      expect(b.changes.version("things")).toBe(before);
    });
    await until(() => b.changes.version("things") > before);
    expect(seen.length).toBeGreaterThan(0);
    // a read that must see it at once asks the store
    await a.changes.notify("things");
    expect(await b.changes.fresh("things")).toBeGreaterThanOrEqual(before + 2);
    // a transaction that fails tells nobody
    const now = b.changes.version("things");
    await expect(
      a.tx(async (tx) => {
        await a.changes.bump(tx, "things");
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await new Promise((r) => setTimeout(r, 100));
    expect(await b.changes.fresh("things")).toBe(now);
  });
});

describe("embedded store transactions", () => {
  it("reports a transaction that stays open across an event-loop turn", async () => {
    const db = openDatabase(":memory:");
    const reports: string[] = [];
    const rel = openSqliteRelational(db, { onLongTransaction: (s) => reports.push(s) });
    await rel.tx(async (tx) => {
      await tx.selectNoFrom((eb) => eb.lit(1).as("one")).execute();
    });
    expect(reports).toEqual([]);
    await rel.tx(async () => {
      await new Promise((r) => setTimeout(r, 5));
    });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("relational.test.ts");
    db.close();
  });
});
