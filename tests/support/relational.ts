import { randomUUID } from "node:crypto";
import { openDatabase, type Db } from "../../server/storage/database";
import { openPostgresRelational } from "../../server/storage/relational/postgres";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import type { Relational, SqlDialect } from "../../server/storage/relational";
import { databaseFor, dropDatabase, testDatabaseUrl } from "./postgres";

/** the stores the contract tests run on: always the embedded one, PostgreSQL when DATABASE_URL is set */
export const storeDialects = (): SqlDialect[] => (testDatabaseUrl() ? ["sqlite", "postgres"] : ["sqlite"]);

export interface TestStore {
  rel: Relational;
  /** the better-sqlite3 handle (embedded store only) */
  db?: Db;
  /** another instance on the same store (PostgreSQL: a second pool; SQLite: the same handle) */
  another(): Promise<Relational>;
  close(): Promise<void>;
}

/** a fresh, empty store of `dialect` (a database of its own on the PostgreSQL cluster) */
export async function openTestStore(dialect: SqlDialect): Promise<TestStore> {
  if (dialect === "sqlite") {
    const db = openDatabase(":memory:");
    const rel = openSqliteRelational(db);
    return { rel, db, another: async () => rel, close: async () => void db.close() };
  }
  const admin = testDatabaseUrl();
  if (!admin) throw new Error("DATABASE_URL is not set");
  const url = await databaseFor(admin, randomUUID());
  const rel = await openPostgresRelational(url);
  const others: Relational[] = [];
  return {
    rel,
    async another() {
      const r = await openPostgresRelational(url);
      others.push(r);
      return r;
    },
    async close() {
      for (const o of others) await o.close();
      await rel.close();
      await dropDatabase(admin, url);
    },
  };
}
