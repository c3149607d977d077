import { createHash } from "node:crypto";
import pg from "pg";

/**
 * The PostgreSQL the tests may use: DATABASE_URL when it is set (npm test sets it to a throw-away
 * cluster from scripts/postgres.mjs for the PostgreSQL pass), else undefined and the tests run on the
 * embedded store only.
 */
export const testDatabaseUrl = (): string | undefined => process.env.DATABASE_URL || undefined;

/**
 * A database of its own for one server's DATA_DIR on the cluster at `adminUrl`: the same DATA_DIR
 * (a restart) finds the same database, a new DATA_DIR gets a new, empty one.
 */
export async function databaseFor(adminUrl: string, key: string): Promise<string> {
  const name = `hub_${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** removes a database made by `databaseFor` (its connections are closed first) */
export async function dropDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
