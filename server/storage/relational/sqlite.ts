import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from "kysely";
import { LRUCache } from "lru-cache";
import type { Db } from "../database";
import { applyMigration } from "./migrate";
import type { ChangeFeed, Relational, Sql, Tx } from "./types";

/**
 * The embedded adapter: Kysely over the one better-sqlite3 connection of DATA_DIR (the same handle
 * the embedded graph and development dataspace use). better-sqlite3 answers synchronously, so a
 * transaction that awaits only its own queries runs to its end before any other request is served;
 * a transaction still open when the event loop turns has awaited something else, and is reported.
 * Transactions begin IMMEDIATE: the store has a second writer, the audit batch thread
 * (server/audit/batch-thread.ts), and a deferred transaction that reads and then writes would fail
 * with SQLITE_BUSY_SNAPSHOT when that thread commits in between (decision 0034).
 */
export function openSqliteRelational(
  db: Db,
  opts: { onLongTransaction?: (stack: string) => void } = {},
): Relational {
  const kysely = new Kysely<Record<string, never>>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(db) }),
  }) as Sql;
  const report =
    opts.onLongTransaction ??
    ((stack: string) =>
      console.error(
        `a transaction on the embedded store stayed open across an event-loop turn (it awaited I/O or a query outside the transaction)\n${stack}`,
      ));
  const versions = new Map<string, number>();
  const listeners = new Map<string, Set<(v: number) => void>>();
  const committed: string[] = [];

  async function tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const started = new Error("transaction started here").stack ?? "";
    let open = true;
    const check = setImmediate(() => {
      if (open) report(started);
    });
    try {
      const pending: string[] = [];
      const out = await kysely.transaction().execute((t) => {
        pendingByTx.set(t, pending);
        return fn(t);
      });
      committed.push(...pending);
      return out;
    } finally {
      open = false;
      clearImmediate(check);
      flush();
    }
  }
  const pendingByTx = new WeakMap<Sql, string[]>();
  function flush() {
    while (committed.length) {
      const topic = committed.shift()!;
      const v = (versions.get(topic) ?? 0) + 1;
      versions.set(topic, v);
      for (const l of listeners.get(topic) ?? []) l(v);
    }
  }
  const lock = async () => {};

  const changes: ChangeFeed = {
    async bump(t, topic) {
      const pending = pendingByTx.get(t);
      if (pending) pending.push(topic);
      else await changes.notify(topic);
    },
    async notify(topic) {
      committed.push(topic);
      flush();
    },
    version: (topic) => versions.get(topic) ?? 0,
    fresh: async (topic) => versions.get(topic) ?? 0,
    subscribe(topic, listener) {
      const set = listeners.get(topic) ?? new Set();
      set.add(listener);
      listeners.set(topic, set);
      return () => set.delete(listener);
    },
  };

  return {
    dialect: "sqlite",
    db: kysely,
    tx,
    within: (t, fn) => (t ? fn(t) : tx(fn)),
    migrate: (name, up) => applyMigration(tx, lock, "sqlite", name, up),
    lock,
    changes,
    // the handle belongs to the caller (services.ts closes it after the graph and the dataspace)
    async close() {},
  };
}

/**
 * Kysely's SQLite dialect, its transactions begun with BEGIN IMMEDIATE (the write lock taken first,
 * waiting up to the handle's busy_timeout for another writer) instead of a deferred BEGIN.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.settings);
  }
}
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

/**
 * Kysely's SQLite driver prepares every query anew; the queries of a module are few and the same
 * each time (values are parameters), so their statements are kept by SQL text (an LRU of `max`).
 * better-sqlite3 runs one statement at a time and recompiles a kept one after a schema change.
 */
export function withStatementCache(db: Db, max = 500): SqliteDatabase {
  const kept = new LRUCache<string, SqliteStatement>({ max });
  return {
    prepare(sql: string): SqliteStatement {
      let stmt = kept.get(sql);
      if (!stmt) kept.set(sql, (stmt = db.prepare(sql) as unknown as SqliteStatement));
      return stmt;
    },
    close: () => db.close(),
  };
}
