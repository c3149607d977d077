import { createHmac, createSecretKey, hash, type KeyObject } from "node:crypto";
import { v7 as timeOrderedUuid } from "uuid";
import { random16 } from "../config/random";
import type { Db } from "../storage/database";
import { GENESIS_HASH, type AuditBatch, type AuditEntry, type AuditInput } from "./model";

/**
 * The hash chain of the audit log, and its synchronous append on an embedded store handle: what
 * log.ts and the audit batch thread (batch-worker.ts) share. No query builder here, so that the
 * thread starts by loading this and better-sqlite3 only.
 */

/**
 * The secret the chain is keyed with (decision 0044): each entry's hash is an HMAC-SHA256 under it, and
 * the checkpoints, tombstones and the keyed-from marker are signed with it. The database never holds
 * it (AUDIT_KEY, or a key file in DATA_DIR: server/audit/key.ts), so whoever can write the database
 * can no longer recompute the chain after changing an entry.
 */
export interface ChainKey {
  /** the secret's bytes (handed to the audit batch thread) */
  readonly secret: Buffer;
  /** HMAC-SHA256 of `text`, hex */
  mac(text: string): string;
  /** the signature of a record that is not an entry (checkpoint, tombstone, marker): its fields in order */
  sign(kind: string, fields: readonly unknown[]): string;
}

export function chainKey(secret: Buffer | string): ChainKey {
  const bytes = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
  if (bytes.length < 32) throw new Error("the audit key must be at least 32 bytes");
  const key: KeyObject = createSecretKey(bytes);
  const mac = (text: string) => createHmac("sha256", key).update(text).digest("hex");
  // a record's text starts with its kind (a string); an entry's canonical text starts with its seq (a number)
  return { secret: bytes, mac, sign: (kind, fields) => mac(JSON.stringify([kind, ...fields])) };
}

const canonicalOf = (e: Omit<AuditEntry, "hash">) =>
  JSON.stringify([e.seq, e.id, e.action, e.actor, e.target, e.outcome, e.kind, e.timestamp, e.prevHash]);

/** an entry's hash: keyed (HMAC-SHA256 under the audit key) */
export function hashEntry(e: Omit<AuditEntry, "hash">, key: ChainKey): string {
  return key.mac(canonicalOf(e));
}

/**
 * The hash of an entry written before the chain was keyed (plain SHA-256): verify checks entries
 * below the signed keyed-from marker this way (server/audit/log.ts).
 */
export function legacyHashEntry(e: Omit<AuditEntry, "hash">): string {
  return hash("sha256", canonicalOf(e), "hex");
}

/**
 * A new entry's id: time-ordered (RFC 9562 version 7), so that the unique index on the id grows at its
 * end, as the sequence does, instead of taking each new id at a random place in a large index
 * (decision 0037). Its random bits come from a pool filled 256 ids at a time, as `randomUUID` does its own.
 */
export function entryId(): string {
  return timeOrderedUuid({ rng: random16 });
}

/** the entry that follows `prev` in the chain (`undefined`: the first) */
export function entryAfter(
  prev: { seq: number; hash: string } | undefined,
  input: AuditInput,
  at: Date,
  key: ChainKey,
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
  return { ...partial, hash: hashEntry(partial, key) };
}

/**
 * The synchronous append on an embedded store handle (`AuditLog.appendSync`, `appendSyncBatch`, the
 * batch thread): entries in order, each after the one before, the chain's head (the newest entry, or
 * the tombstone of a newer purged one) read once.
 */
export function syncAppender(db: Db, key: ChainKey) {
  const lastEntry = db.prepare("SELECT seq, hash FROM audit_entries ORDER BY seq DESC LIMIT 1");
  const lastTombstone = db.prepare("SELECT seq, hash FROM audit_purged ORDER BY seq DESC LIMIT 1");
  // positional parameters: cheaper per insert than binding by name (better-sqlite3)
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
        const entry = entryAfter(prev, input, at, key);
        const { seq, id, action, actor, target, outcome, kind, timestamp, prevHash, hash } = entry;
        insert.run(seq, id, action, actor, target, outcome, kind, timestamp, prevHash, hash);
        prev = entry;
        return entry;
      });
    },
  };
}
