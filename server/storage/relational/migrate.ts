import { sql } from "kysely";
import type { Migration, Sql, SqlDialect, Tx } from "./types";

/**
 * Each module owns its tables and applies its own migrations, named uniquely; the names are those
 * the embedded store has always used, so an existing DATA_DIR is not migrated again.
 */
export async function applyMigration(
  run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>,
  lock: (tx: Sql, name: string) => Promise<void>,
  dialect: SqlDialect,
  name: string,
  up: Migration,
): Promise<void> {
  await run(async (tx) => {
    // two instances starting at once: the second waits here and then finds the migration done
    await lock(tx, "migrations");
    await tx.schema
      .createTable("migrations")
      .ifNotExists()
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("applied_at", "text", (c) => c.notNull())
      .execute();
    const done = await tx.selectFrom("migrations").select("name").where("name", "=", name).executeTakeFirst();
    if (done) return;
    await up(tx, dialect);
    await tx.insertInto("migrations").values({ name, applied_at: new Date().toISOString() }).execute();
  });
}

/** an auto-numbered integer key column: INTEGER PRIMARY KEY on SQLite, a bigint identity on PostgreSQL */
export const serialType = (dialect: SqlDialect) => (dialect === "postgres" ? "bigserial" : "integer");

/** raw SQL for a statement the schema builder does not express (triggers): one per dialect */
export async function rawDdl(db: Sql, statement: string): Promise<void> {
  await sql.raw(statement).execute(db);
}

/**
 * The DDL that refuses to change the rows of `table` (updates, and deletes unless `deletable`) with
 * `message`: a trigger per statement on SQLite, a function and its row trigger on PostgreSQL.
 */
export function appendOnlyDdl(dialect: SqlDialect, table: string, message: string, deletable = false) {
  if (dialect !== "postgres")
    return (deletable ? ["UPDATE"] : ["UPDATE", "DELETE"]).map(
      (op) => `CREATE TRIGGER ${table}_no_${op.toLowerCase()} BEFORE ${op} ON ${table}
    BEGIN SELECT RAISE(ABORT, '${message}'); END`,
    );
  const [name, ops] = deletable ? ["no_update", "UPDATE"] : ["no_change", "UPDATE OR DELETE"];
  return [
    `CREATE FUNCTION ${table}_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION '${message}'; END $$`,
    `CREATE TRIGGER ${table}_${name} BEFORE ${ops} ON ${table}
    FOR EACH ROW EXECUTE FUNCTION ${table}_append_only()`,
  ];
}
