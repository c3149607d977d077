import { randomBytes } from "node:crypto";
import type { Relational, Sql } from "./relational";

/** a table of values kept once by name (`name`, the value's column, `created_at`) */
export interface KeptValues {
  table: string;
  column: string;
}

/** creates a table of kept values in a migration (`m`), as each of them always was */
export const createKeptTable = (m: Sql, where: KeptValues) =>
  m.schema
    .createTable(where.table)
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn(where.column, "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

/** creates a table of kept values by its own migration `id` */
export const ensureKeptTable = (rel: Relational, id: string, where: KeptValues) =>
  rel.migrate(id, (m) => createKeptTable(m, where));

const SECRETS: KeptValues = { table: "secrets", column: "value" };

/** the secrets table (migration `secrets-1`) */
export const ensureSecretsTable = (rel: Relational) => ensureKeptTable(rel, "secrets-1", SECRETS);

/** the value kept as `name`, if one is */
export async function readKept(
  db: Sql,
  name: string,
  where: KeptValues = SECRETS,
): Promise<string | undefined> {
  const row = (await db
    .selectFrom(where.table)
    .select(where.column)
    .where("name", "=", name)
    .executeTakeFirst()) as Record<string, string> | undefined;
  return row?.[where.column];
}

/**
 * Keeps `value` as the secret `name` unless one is already kept; returns the kept value. When two
 * instances start at once, both end up with the first value written.
 */
export async function keepSecret(
  db: Sql,
  name: string,
  value: string,
  where: KeptValues = SECRETS,
): Promise<string> {
  await db
    .insertInto(where.table)
    .values({ name, [where.column]: value, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  return (await readKept(db, name, where))!;
}

/** the value kept as `name`, else `create()`'s, kept by keepSecret's rule */
export async function readOrKeep(
  db: Sql,
  name: string,
  create: () => string | Promise<string>,
  where: KeptValues = SECRETS,
): Promise<string> {
  return (await readKept(db, name, where)) ?? keepSecret(db, name, await create(), where);
}

/**
 * Secrets generated once and kept in the relational store (DATA_DIR's SQLite file, or PostgreSQL
 * shared by every instance), e.g. the session secret when SESSION_SECRET is unset.
 */
export async function getOrCreateSecret(rel: Relational, name: string): Promise<string> {
  await ensureSecretsTable(rel);
  return readOrKeep(rel.db, name, () => randomBytes(32).toString("base64url"));
}
