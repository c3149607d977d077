import type { Kysely, Transaction } from "kysely";

/** Which adapter of the relational port is in use. */
export type SqlDialect = "sqlite" | "postgres";

/**
 * A query handle: the store itself or an open transaction. Tables are described per module
 * (each module owns its tables and row types); the port is untyped so modules stay independent.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Sql = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Tx = Transaction<any>;

/** a schema change of one module, written once with Kysely's schema builder for both dialects */
export type Migration = (db: Sql, dialect: SqlDialect) => Promise<void>;

/**
 * The relational store port (server/storage/relational): sessions, the provider's grants, the audit
 * chain, access-body records, consents, policies, credentials, companion-app devices and the
 * change versions live behind it. Two adapters: the embedded SQLite file (default, no set-up) and
 * PostgreSQL (`DATABASE_URL`), shared by several hub instances.
 */
export interface Relational {
  readonly dialect: SqlDialect;
  /** queries outside a transaction (each statement commits on its own) */
  readonly db: Sql;
  /**
   * Runs `fn` in one transaction: everything written through `tx` commits together, or nothing
   * does. On the embedded store a transaction must not await anything but its own queries
   * (no HTTP, no timers): the one connection is held until it ends.
   */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** `fn` inside `tx` when one is open, else in a transaction of its own */
  within<T>(tx: Sql | undefined, fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** applies a module's migration once (by name), serialised across instances */
  migrate(name: string, up: Migration): Promise<void>;
  /**
   * Takes a lock that serialises writers across instances until `tx` ends (PostgreSQL advisory
   * transaction lock); on the embedded store the one connection already serialises writers.
   */
  lock(tx: Sql, name: string): Promise<void>;
  /** change notices between instances (caches and version counters) */
  readonly changes: ChangeFeed;
  close(): Promise<void>;
}

/**
 * Versions of things that instances cache in memory. A write bumps its topic in the same
 * transaction; every instance (this one included) sees the new version once it commits:
 * in-process at once on SQLite, by LISTEN/NOTIFY and a version row on PostgreSQL.
 */
export interface ChangeFeed {
  /** marks `topic` changed by the write in `tx` */
  bump(tx: Sql, topic: string): Promise<void>;
  /** marks `topic` changed by a write outside this store (e.g. the graph in Neo4j), in a transaction of its own */
  notify(topic: string): Promise<void>;
  /** the newest version of `topic` this instance knows (0 before any change) */
  version(topic: string): number;
  /** reads the version row from the store, for a read that must see another instance's write at once */
  fresh(topic: string): Promise<number>;
  /** called after a change of `topic` by any instance is known here; returns an unsubscribe */
  subscribe(topic: string, listener: (version: number) => void): () => void;
}
