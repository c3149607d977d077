import type { Db } from "../database";
import { openPostgresRelational } from "./postgres";
import { openSqliteRelational } from "./sqlite";
import type { Relational } from "./types";

export type { ChangeFeed, Migration, Relational, Sql, SqlDialect, Tx } from "./types";
export { appendOnlyDdl, serialType, rawDdl } from "./migrate";

/**
 * The relational store the container uses: PostgreSQL when DATABASE_URL is set (several instances
 * share it), else the embedded SQLite file of DATA_DIR.
 */
export async function openRelational(opts: { databaseUrl?: string; sqlite: Db }): Promise<Relational> {
  return opts.databaseUrl ? openPostgresRelational(opts.databaseUrl) : openSqliteRelational(opts.sqlite);
}

/**
 * The version of a change-feed topic as the store has it now: in-process at once on SQLite; on
 * PostgreSQL its row, read by key, so a write acknowledged by another instance shows at once
 * (without waiting for its NOTIFY). What answers kept per version of a table read (issue 13).
 */
export function topicVersion(rel: Relational, topic: string): number | Promise<number> {
  return rel.dialect === "sqlite" ? rel.changes.version(topic) : rel.changes.fresh(topic);
}
