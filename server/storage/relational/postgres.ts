import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { applyMigration } from "./migrate";
import type { ChangeFeed, Relational, Sql, Tx } from "./types";

const CHANNEL = "hub_changes";

/** a stable 32-bit key for an advisory lock name */
function lockKey(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * The shared adapter: PostgreSQL at DATABASE_URL, a pool of connections, and one extra connection
 * that LISTENs for other instances' change notices. Counts come back as numbers (int8/numeric are
 * parsed), times are kept as ISO text as on SQLite.
 */
export async function openPostgresRelational(url: string): Promise<Relational> {
  const types = {
    getTypeParser: (oid: number, format?: "text" | "binary") => {
      if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v));
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types: types as pg.CustomTypesConfig,
  });
  // an idle client that loses its connection must not crash the process
  pool.on("error", (err) => console.error(`PostgreSQL pool: ${err.message}`));
  const kysely = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool }) }) as Sql;

  const versions = new Map<string, number>();
  const listeners = new Map<string, Set<(v: number) => void>>();
  const known = (topic: string, v: number) => {
    if (v <= (versions.get(topic) ?? 0)) return;
    versions.set(topic, v);
    for (const l of listeners.get(topic) ?? []) l(v);
  };

  const lock = async (tx: Sql, name: string) => {
    await sql`SELECT pg_advisory_xact_lock(${lockKey(name)})`.execute(tx);
  };
  const tx = <T>(fn: (t: Tx) => Promise<T>) => kysely.transaction().execute(fn);
  const migrate: Relational["migrate"] = (name, up) => applyMigration(tx, lock, "postgres", name, up);

  await migrate("change-versions-1", async (db) => {
    await db.schema
      .createTable("change_versions")
      .addColumn("topic", "text", (c) => c.primaryKey())
      .addColumn("version", "bigint", (c) => c.notNull())
      .execute();
  });

  // the listener: a dedicated client; on loss it reconnects and rereads every version
  let listener: pg.Client | undefined;
  let closed = false;
  async function listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 5000,
    });
    client.on("notification", (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      const at = n.payload.lastIndexOf(":");
      known(n.payload.slice(0, at), Number(n.payload.slice(at + 1)));
    });
    client.on("error", () => {
      if (closed) return;
      listener = undefined;
      setTimeout(() => void listen().catch(() => {}), 500).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    listener = client;
    const rows = await kysely.selectFrom("change_versions").select(["topic", "version"]).execute();
    for (const r of rows as { topic: string; version: number }[]) known(r.topic, Number(r.version));
  }
  await listen();

  const changes: ChangeFeed = {
    async bump(t, topic) {
      const row = (await t
        .insertInto("change_versions")
        .values({ topic, version: 1 })
        .onConflict((oc) => oc.column("topic").doUpdateSet({ version: sql`change_versions.version + 1` }))
        .returning("version")
        .executeTakeFirstOrThrow()) as { version: number };
      // delivered to every listening instance, this one included, when the transaction commits
      await sql`SELECT pg_notify(${CHANNEL}, ${`${topic}:${row.version}`})`.execute(t);
    },
    notify: (topic) => tx((t) => changes.bump(t, topic)),
    version: (topic) => versions.get(topic) ?? 0,
    async fresh(topic) {
      const row = (await kysely
        .selectFrom("change_versions")
        .select("version")
        .where("topic", "=", topic)
        .executeTakeFirst()) as { version: number } | undefined;
      known(topic, Number(row?.version ?? 0));
      return versions.get(topic) ?? 0;
    },
    subscribe(topic, l) {
      const set = listeners.get(topic) ?? new Set();
      set.add(l);
      listeners.set(topic, set);
      return () => set.delete(l);
    },
  };

  return {
    dialect: "postgres",
    db: kysely,
    tx,
    within: (t, fn) => (t ? fn(t) : tx(fn)),
    migrate,
    lock,
    changes,
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await kysely.destroy();
    },
  };
}
