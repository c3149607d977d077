import type { Db } from "../database";
import { openPostgresRelational } from "./postgres";
import { openSqliteRelational } from "./sqlite";
import type { Relational } from "./types";

export type { ChangeFeed, Migration, Relational, Sql, SqlDialect, Tx } from "./types";
export { serialType, rawDdl } from "./migrate";

/**
 * The relational store the container uses: PostgreSQL when DATABASE_URL is set (several instances
 * share it), else the embedded SQLite file of DATA_DIR.
 */
export async function openRelational(opts: { databaseUrl?: string; sqlite: Db }): Promise<Relational> {
  return opts.databaseUrl ? openPostgresRelational(opts.databaseUrl) : openSqliteRelational(opts.sqlite);
}
