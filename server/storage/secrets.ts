import { randomBytes } from "node:crypto";
import type { Relational, Sql } from "./relational";

/** the secrets table, created as the embedded store always did (migration `secrets-1`) */
export async function ensureSecretsTable(rel: Relational): Promise<void> {
  await rel.migrate("secrets-1", async (m) => {
    await m.schema
      .createTable("secrets")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  });
}

/**
 * Keeps `value` as the secret `name` unless one is already kept; returns the kept value. When two
 * instances start at once, both end up with the first value written.
 */
export async function keepSecret(db: Sql, name: string, value: string): Promise<string> {
  await db
    .insertInto("secrets")
    .values({ name, value, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = (await db
    .selectFrom("secrets")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirstOrThrow()) as {
    value: string;
  };
  return row.value;
}

/**
 * Secrets generated once and kept in the relational store (DATA_DIR's SQLite file, or PostgreSQL
 * shared by every instance), e.g. the session secret when SESSION_SECRET is unset.
 */
export async function getOrCreateSecret(rel: Relational, name: string, bytes = 32): Promise<string> {
  await ensureSecretsTable(rel);
  const row = (await rel.db
    .selectFrom("secrets")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirst()) as { value: string } | undefined;
  if (row) return row.value;
  return keepSecret(rel.db, name, randomBytes(bytes).toString("base64url"));
}
