import { describe, expect, it } from "vitest";
import { openDatabase } from "../database";
import { openSqliteRelational, withStatementCache } from "./sqlite";

describe("the embedded store's statement cache", () => {
  it("prepares each SQL text once and answers as a fresh statement would, across a schema change", async () => {
    const db = openDatabase(":memory:");
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    const rel = openSqliteRelational(db);
    await rel.db.schema
      .createTable("t")
      .addColumn("id", "text", (c) => c.primaryKey())
      .execute();
    const read = (id: string) => rel.db.selectFrom("t").selectAll().where("id", "=", id).execute();
    for (const id of ["a", "b", "c"]) await rel.db.insertInto("t").values({ id }).execute();
    expect(await read("a")).toEqual([{ id: "a" }]);
    expect(await read("b")).toEqual([{ id: "b" }]);
    const selects = prepared.filter((s) => s.startsWith("select"));
    const inserts = prepared.filter((s) => s.startsWith("insert"));
    expect(selects).toHaveLength(1);
    expect(inserts).toHaveLength(1);
    // a kept statement still answers after the table changes shape
    await rel.db.schema.alterTable("t").addColumn("v", "text").execute();
    await rel.db.updateTable("t").set({ v: "x" }).where("id", "=", "a").execute();
    expect(await read("a")).toEqual([{ id: "a", v: "x" }]);
    db.close();
  });

  it("keeps at most `max` statements, dropping the least recently used", () => {
    const db = openDatabase(":memory:");
    const cache = withStatementCache(db, 2);
    const one = cache.prepare("select 1");
    cache.prepare("select 2");
    expect(cache.prepare("select 1")).toBe(one); // used again: now the most recent
    cache.prepare("select 3"); // drops "select 2"
    expect(cache.prepare("select 1")).toBe(one);
    const two = cache.prepare("select 2");
    expect(two.all([])).toEqual([{ 2: 2 }]);
    db.close();
  });
});
