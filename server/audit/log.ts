import { createHash, randomUUID } from "node:crypto";
import { migrate, type Db } from "../storage/database";
import { GENESIS_HASH, type AuditEntry, type AuditInput } from "./model";

/**
 * The append-only, hash-chained audit log in the embedded database. `append` is synchronous so
 * it can run inside the same `db.transaction` as the change it records.
 */
export interface AuditLog {
  append(input: AuditInput, at?: Date): AuditEntry;
  list(filter?: AuditFilter): AuditEntry[];
  count(): number;
  /** walks the chain; reports the first entry whose hash or link does not match */
  verify(): AuditVerification;
  /**
   * Retention purge (server/audit/retention.ts): removes the entries of `kind` older than `before`
   * (ISO date-time) and keeps a tombstone of each (seq, kind, timestamp, prevHash, hash), so the
   * chain still verifies across the gap: the links are checked, the removed content is gone.
   */
  purge(kind: string, before: string, limit?: number): number;
  /** the entry kinds in the log, with counts, oldest entry and removed entries */
  kinds(): AuditKindStats[];
  /** entries of `kind` older than `before` (what a purge would remove) */
  countBefore(kind: string, before: string): number;
}

export interface AuditKindStats {
  kind: string;
  entries: number;
  oldest: string | null;
  purged: number;
}

export interface AuditFilter {
  limit?: number;
  kind?: string;
  /** entries of any of these kinds */
  kinds?: string[];
  actor?: string;
  action?: string;
  /** ISO date-time; entries at or after */
  since?: string;
  /** ISO date-time; entries before */
  until?: string;
  outcome?: string;
  /** entries whose action, actor or target contain this text (case-insensitive) */
  q?: string;
  /** paging: entries with a smaller seq than this */
  beforeSeq?: number;
}

export type AuditVerification =
  | { ok: true; checked: number }
  | { ok: false; checked: number; firstBroken: { seq: number; id: string; reason: string } };

interface Row {
  seq: number;
  id: string;
  action: string;
  actor: string;
  target: string;
  outcome: string;
  kind: string;
  timestamp: string;
  prev_hash: string;
  hash: string;
}

export function hashEntry(e: Omit<AuditEntry, "hash">): string {
  const canonical = JSON.stringify([
    e.seq,
    e.id,
    e.action,
    e.actor,
    e.target,
    e.outcome,
    e.kind,
    e.timestamp,
    e.prevHash,
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}

const toEntry = (r: Row): AuditEntry => ({
  id: r.id,
  action: r.action,
  actor: r.actor,
  target: r.target,
  outcome: r.outcome,
  timestamp: r.timestamp,
  kind: r.kind,
  seq: r.seq,
  prevHash: r.prev_hash,
  hash: r.hash,
});

export function createAuditLog(db: Db): AuditLog {
  migrate(db, "audit-1", [
    `CREATE TABLE audit_entries (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      action TEXT NOT NULL,
      actor TEXT NOT NULL,
      target TEXT NOT NULL,
      outcome TEXT NOT NULL,
      kind TEXT NOT NULL,
      timestamp TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL
    )`,
    "CREATE INDEX audit_entries_kind ON audit_entries(kind, seq)",
    // append-only: the database itself refuses to change or remove an entry
    `CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_entries
      BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END`,
  ]);
  // retention purges leave a tombstone per removed entry, so that the chain stays verifiable
  migrate(db, "audit-2-purged", [
    `CREATE TABLE audit_purged (
      seq INTEGER PRIMARY KEY,
      kind TEXT NOT NULL,
      timestamp TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL,
      purged_at TEXT NOT NULL
    )`,
    "CREATE INDEX audit_entries_timestamp ON audit_entries(kind, timestamp)",
    `CREATE TRIGGER audit_purged_no_update BEFORE UPDATE ON audit_purged
      BEGIN SELECT RAISE(ABORT, 'audit tombstones are append-only'); END`,
    `CREATE TRIGGER audit_purged_no_delete BEFORE DELETE ON audit_purged
      BEGIN SELECT RAISE(ABORT, 'audit tombstones are append-only'); END`,
  ]);
  const lastEntry = db.prepare("SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1");
  const lastTombstone = db.prepare("SELECT seq, hash FROM audit_purged ORDER BY seq DESC LIMIT 1");
  // the chain's head: the newest entry, or the tombstone of a newer purged one
  const last = {
    get(): { seq: number; hash: string } | undefined {
      const e = lastEntry.get() as { seq: number; hash: string } | undefined;
      const t = lastTombstone.get() as { seq: number; hash: string } | undefined;
      return t && (!e || t.seq > e.seq) ? t : e;
    },
  };
  const insert = db.prepare(
    `INSERT INTO audit_entries (seq, id, action, actor, target, outcome, kind, timestamp, prev_hash, hash)
     VALUES (@seq, @id, @action, @actor, @target, @outcome, @kind, @timestamp, @prevHash, @hash)`,
  );
  const countStmt = db.prepare("SELECT COUNT(*) AS n FROM audit_entries");

  return {
    append(input, at = new Date()) {
      const prev = last.get() as { seq: number; hash: string } | undefined;
      const partial = {
        seq: (prev?.seq ?? 0) + 1,
        id: randomUUID(),
        action: input.action,
        actor: input.actor,
        target: input.target,
        outcome: input.outcome ?? "success",
        kind: input.kind,
        timestamp: at.toISOString(),
        prevHash: prev?.hash ?? GENESIS_HASH,
      };
      const entry: AuditEntry = { ...partial, hash: hashEntry(partial) };
      insert.run(entry);
      return entry;
    },
    list(filter = {}) {
      const where: string[] = [];
      const args: unknown[] = [];
      const q = filter.q?.trim().toLowerCase();
      const like = q ? `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
      const conditions: [string, string | number | undefined, number?][] = [
        ["kind = ?", filter.kind],
        ["actor = ?", filter.actor],
        ["action = ?", filter.action],
        ["timestamp >= ?", filter.since],
        ["timestamp < ?", filter.until],
        ["outcome = ?", filter.outcome],
        ["seq < ?", filter.beforeSeq],
        [
          "(lower(action) LIKE ? ESCAPE '\\' OR lower(actor) LIKE ? ESCAPE '\\' OR lower(target) LIKE ? ESCAPE '\\')",
          like,
          3,
        ],
      ];
      for (const [sql, value, times = 1] of conditions) {
        if (value === undefined || value === "") continue;
        where.push(sql);
        for (let i = 0; i < times; i++) args.push(value);
      }
      if (filter.kinds) {
        where.push(filter.kinds.length ? `kind IN (${filter.kinds.map(() => "?").join(", ")})` : "0");
        args.push(...filter.kinds);
      }
      const sql = `SELECT * FROM audit_entries ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit ?? 100) as Row[]).map(toEntry);
    },
    count() {
      return (countStmt.get() as { n: number }).n;
    },
    verify() {
      let prevHash = GENESIS_HASH;
      let expectedSeq: number | null = null;
      let checked = 0;
      // entries and the tombstones of purged entries, in chain order
      const rows = db
        .prepare(
          `SELECT seq, id, action, actor, target, outcome, kind, timestamp, prev_hash, hash, 0 AS purged FROM audit_entries
           UNION ALL
           SELECT seq, NULL, NULL, NULL, NULL, NULL, kind, timestamp, prev_hash, hash, 1 AS purged FROM audit_purged
           ORDER BY seq`,
        )
        .iterate() as IterableIterator<Omit<Row, "id"> & { id: string | null; purged: 0 | 1 }>;
      for (const r of rows) {
        const broken = (reason: string): AuditVerification => ({
          ok: false,
          checked,
          firstBroken: { seq: r.seq, id: r.id ?? `purged-${r.seq}`, reason },
        });
        if (expectedSeq !== null && r.seq !== expectedSeq) {
          return broken(
            r.seq < expectedSeq
              ? `entry ${r.seq} appears twice (entry and tombstone)`
              : `entry ${expectedSeq} is missing`,
          );
        }
        if (r.prev_hash !== prevHash) return broken("link to the previous entry does not match");
        if (!r.purged) {
          const e = toEntry(r as Row);
          if (hashEntry(e) !== e.hash) return broken("entry content does not match its hash");
          checked++;
        }
        prevHash = r.hash;
        expectedSeq = r.seq + 1;
      }
      return { ok: true, checked };
    },
    purge(kind, before, limit = 10_000) {
      const victims = db
        .prepare(
          "SELECT seq, kind, timestamp, prev_hash, hash FROM audit_entries WHERE kind = ? AND timestamp < ? ORDER BY seq LIMIT ?",
        )
        .all(kind, before, limit) as Pick<Row, "seq" | "kind" | "timestamp" | "prev_hash" | "hash">[];
      if (victims.length === 0) return 0;
      const tomb = db.prepare(
        "INSERT INTO audit_purged (seq, kind, timestamp, prev_hash, hash, purged_at) VALUES (@seq, @kind, @timestamp, @prev_hash, @hash, @purgedAt)",
      );
      const remove = db.prepare("DELETE FROM audit_entries WHERE seq = ?");
      const purgedAt = new Date().toISOString();
      db.transaction(() => {
        for (const v of victims) {
          tomb.run({ ...v, purgedAt });
          remove.run(v.seq);
        }
      })();
      return victims.length;
    },
    kinds() {
      const live = db
        .prepare("SELECT kind, COUNT(*) AS n, MIN(timestamp) AS oldest FROM audit_entries GROUP BY kind")
        .all() as {
        kind: string;
        n: number;
        oldest: string | null;
      }[];
      const gone = db.prepare("SELECT kind, COUNT(*) AS n FROM audit_purged GROUP BY kind").all() as {
        kind: string;
        n: number;
      }[];
      const out = new Map<string, AuditKindStats>();
      for (const l of live) out.set(l.kind, { kind: l.kind, entries: l.n, oldest: l.oldest, purged: 0 });
      for (const g of gone)
        out.set(g.kind, { ...(out.get(g.kind) ?? { kind: g.kind, entries: 0, oldest: null }), purged: g.n });
      return [...out.values()].sort((a, b) => a.kind.localeCompare(b.kind));
    },
    countBefore(kind, before) {
      return (
        db
          .prepare("SELECT COUNT(*) AS n FROM audit_entries WHERE kind = ? AND timestamp < ?")
          .get(kind, before) as { n: number }
      ).n;
    },
  };
}
