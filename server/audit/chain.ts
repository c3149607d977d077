import { hash, randomFillSync } from "node:crypto";
import { v7 as timeOrderedUuid } from "uuid";
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
  // one call instead of a Hash object per entry: 0.6 µs instead of 1.7 µs here (Node 20)
  return hash("sha256", canonical, "hex");
}

/**
 * A new entry's id: time-ordered (RFC 9562 version 7), so that the unique index on the id grows at its
 * end, as the sequence does, instead of taking each new id at a random place in a large index (an
 * insert cost 40–55 µs with random ids in a log of 800,000 entries, 15–20 µs with these; decision
 * 0037). Its random bits come from a pool filled 256 ids at a time, as `randomUUID` does its own.
 */
export function entryId(): string {
  return timeOrderedUuid({ rng: pooledRandom });
}
const randomPool = new Uint8Array(16 * 256);
let randomAt = randomPool.length;
function pooledRandom(): Uint8Array {
  if (randomAt === randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  randomAt += 16;
  return randomPool.subarray(randomAt - 16, randomAt);
}

/** the entry that follows `prev` in the chain (`undefined`: the first) */
export function entryAfter(
  prev: { seq: number; hash: string } | undefined,
  input: AuditInput,
  at: Date,
): AuditEntry {
  const partial = {
    seq: (prev?.seq ?? 0) + 1,
    id: entryId(),
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
  // positional parameters: binding ten from an object by name cost 15 % more per insert (better-sqlite3)
  const insert = db.prepare(
    `INSERT INTO audit_entries (seq, id, action, actor, target, outcome, kind, timestamp, prev_hash, hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        const { seq, id, action, actor, target, outcome, kind, timestamp, prevHash, hash } = entry;
        insert.run(seq, id, action, actor, target, outcome, kind, timestamp, prevHash, hash);
        prev = entry;
        return entry;
      });
    },
  };
}
