import type { Db } from "../database";
import { openPostgresRelational } from "./postgres";
import { openSqliteRelational } from "./sqlite";
import type { Relational, Tx } from "./types";

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

/**
 * A store's transactions on `topic`, and the version its caches key by. The version counts this
 * instance's writes when each begins and again when it ends (committed or not), so a read that
 * overlapped a write is never taken for one after it; another instance's writes arrive through the
 * change feed (the topic is bumped in each write's transaction).
 */
export function topicWriter(rel: Relational, topic: string) {
  let ownWrites = 0;
  return {
    /** runs `fn` in one transaction that also bumps `topic` */
    async tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      ownWrites++;
      try {
        return await rel.tx(async (tx) => {
          const result = await fn(tx);
          await rel.changes.bump(tx, topic);
          return result;
        });
      } finally {
        ownWrites++;
      }
    },
    /** another instance's writes seen once their notice arrives (on PostgreSQL by NOTIFY) */
    version: () => `${ownWrites}/${rel.changes.version(topic)}`,
    /** another instance's acknowledged write seen at once (topicVersion) */
    fresh: async () => `${ownWrites}/${await topicVersion(rel, topic)}`,
  };
}

/** the named `columns` of `row`: what a write stores, however wide the caller's object */
export const columnsOf = <R, K extends keyof R>(row: R, columns: readonly K[]) =>
  Object.fromEntries(columns.map((c) => [c, row[c]])) as Pick<R, K>;

/** a row with its millisecond times (`…_at` columns) as numbers: PostgreSQL's bigint arrives as a string */
export function withTimes<T extends object>(r: T): T {
  const out = { ...r } as Record<string, unknown>;
  for (const k in out) if (k.endsWith("_at") && out[k] !== null) out[k] = Number(out[k]);
  return out as T;
}
