import type { Db } from "../../server/storage/database";

/**
 * Watches the embedded store for changes: TEMP triggers on the server's own SQLite connection (the
 * one every capability writes through) count each INSERT, UPDATE and DELETE per table into a TEMP
 * table. TEMP objects live only in that connection and vanish with it; the database file is not
 * altered. Tables changed by reads by design (sessions: last seen) are left out via `ignore`.
 */
export interface StoreWatch {
  /** changes per table since the watch started (or since `mark()`) */
  changes(): Record<string, number>;
  /** a point to compare against */
  mark(): number;
  /** the tables changed since a mark */
  changedSince(mark: number): string[];
  stop(): void;
}

/**
 * Tables that change on reads and refusals by design: sessions (last seen), the provider's grants, the
 * federated query log, the audit log (a refused call may record its failed attempt: checked apart) and the
 * rate limits, which count every attempt (decision 0045).
 */
export const VOLATILE = (t: string) =>
  t === "sessions" ||
  t.startsWith("oidc") ||
  t.includes("query_log") ||
  t === "audit_entries" ||
  t === "rate_limits";

export function watchStore(db: Db, ignore: (table: string) => boolean): StoreWatch {
  db.exec("CREATE TEMP TABLE IF NOT EXISTS hub_store_watch (seq INTEGER PRIMARY KEY, tbl TEXT NOT NULL)");
  const tables = (
    db
      .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as {
      name: string;
    }[]
  )
    .map((r) => r.name)
    .filter((t) => !ignore(t));
  const triggers: string[] = [];
  for (const t of tables) {
    for (const op of ["INSERT", "UPDATE", "DELETE"]) {
      const name = `hub_watch_${op.toLowerCase()}_${t.replace(/\W/g, "_")}`;
      const quoted = `"${t.replaceAll('"', '""')}"`;
      const literal = `'${t.replaceAll("'", "''")}'`;
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS ${name} AFTER ${op} ON main.${quoted} BEGIN INSERT INTO hub_store_watch (tbl) VALUES (${literal}); END`,
      );
      triggers.push(name);
    }
  }
  const last = db.prepare("SELECT coalesce(max(seq), 0) AS n FROM hub_store_watch");
  const since = db.prepare("SELECT DISTINCT tbl FROM hub_store_watch WHERE seq > ?");
  const perTable = db.prepare("SELECT tbl, count(*) AS n FROM hub_store_watch GROUP BY tbl");
  return {
    changes: () =>
      Object.fromEntries((perTable.all() as { tbl: string; n: number }[]).map((r) => [r.tbl, r.n])),
    mark: () => (last.get() as { n: number }).n,
    changedSince: (mark) => (since.all(mark) as { tbl: string }[]).map((r) => r.tbl),
    stop() {
      for (const name of triggers) db.exec(`DROP TRIGGER IF EXISTS temp.${name}`);
      db.exec("DROP TABLE IF EXISTS temp.hub_store_watch");
    },
  };
}
