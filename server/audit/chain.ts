import { createHash, randomUUID } from "node:crypto";
import type { Db } from "../storage/database";
import { GENESIS_HASH, type AuditBatch, type AuditEntry, type AuditInput } from "./model";

/**
 * The hash chain of the audit log, and its synchronous append on an embedded store handle: what
 * log.ts and the audit batch thread (batch-worker.ts) share. No query builder here, so that the
 * thread starts by loading this and better-sqlite3 only.
 */

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

/** the entry that follows `prev` in the chain (`undefined`: the first) */
export function entryAfter(
  prev: { seq: number; hash: string } | undefined,
  input: AuditInput,
  at: Date,
): AuditEntry {
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
  return { ...partial, hash: hashEntry(partial) };
}

/**
 * The synchronous append on an embedded store handle (`AuditLog.appendSync`, `appendSyncBatch`, the
 * batch thread): entries in order, each after the one before, the chain's head (the newest entry, or
 * the tombstone of a newer purged one) read once.
 */
export function syncAppender(db: Db) {
  const lastEntry = db.prepare("SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1");
  const lastTombstone = db.prepare("SELECT seq, hash FROM audit_purged ORDER BY seq DESC LIMIT 1");
  const insert = db.prepare(
    `INSERT INTO audit_entries (seq, id, action, actor, target, outcome, kind, timestamp, prev_hash, hash)
     VALUES (@seq, @id, @action, @actor, @target, @outcome, @kind, @timestamp, @prevHash, @hash)`,
  );
  const head = () => {
    const e = lastEntry.get() as { seq: number; hash: string } | undefined;
    const t = lastTombstone.get() as { seq: number; hash: string } | undefined;
    return t && (!e || t.seq > e.seq) ? t : e;
  };
  return {
    /** in the caller's transaction */
    append(entries: AuditBatch): AuditEntry[] {
      let prev = entries.length ? head() : undefined;
      return entries.map(({ input, at }) => {
        const entry = entryAfter(prev, input, at);
        insert.run(entry);
        prev = entry;
        return entry;
      });
    },
  };
}
