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
}

export interface AuditFilter {
  limit?: number;
  kind?: string;
  actor?: string;
  action?: string;
  /** ISO date-time; entries at or after */
  since?: string;
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
  const canonical = JSON.stringify([e.seq, e.id, e.action, e.actor, e.target, e.outcome, e.kind, e.timestamp, e.prevHash]);
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
  const last = db.prepare("SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1");
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
      const conditions: [string, string | undefined][] = [
        ["kind = ?", filter.kind],
        ["actor = ?", filter.actor],
        ["action = ?", filter.action],
        ["timestamp >= ?", filter.since],
      ];
      for (const [sql, value] of conditions) {
        if (!value) continue;
        where.push(sql);
        args.push(value);
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
      for (const r of db.prepare("SELECT * FROM audit_entries ORDER BY seq").iterate() as IterableIterator<Row>) {
        const e = toEntry(r);
        const broken = (reason: string): AuditVerification => ({ ok: false, checked, firstBroken: { seq: e.seq, id: e.id, reason } });
        if (expectedSeq !== null && e.seq !== expectedSeq) return broken(`entry ${expectedSeq} is missing`);
        if (e.prevHash !== prevHash) return broken("link to the previous entry does not match");
        if (hashEntry(e) !== e.hash) return broken("entry content does not match its hash");
        prevHash = e.hash;
        expectedSeq = e.seq + 1;
        checked++;
      }
      return { ok: true, checked };
    },
  };
}
