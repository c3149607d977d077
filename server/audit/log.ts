import { sql } from "kysely";
import type { Db } from "../storage/database";
import { appendOnlyDdl, rawDdl, type Relational, type Sql } from "../storage/relational";
import { chainKey, entryAfter, hashEntry, legacyHashEntry, syncAppender, type ChainKey } from "./chain";
import type { Checkpoint } from "./checkpoints";
import type { AuditAnchor } from "./key";
import { GENESIS_HASH, type AuditBatch, type AuditEntry, type AuditInput } from "./model";

/**
 * The append-only, hash-chained audit log in the relational store (server/storage/relational).
 * `append` takes the transaction of the change it records, so the change and its entry commit
 * together; appends are serialised (one chain) across every instance that shares the store.
 */
export type AuditLog = Awaited<ReturnType<typeof createAuditLog>>;

/**
 * The change-feed topic of the audit log's content (entries appended or purged; retention settings
 * and the last purge too, server/audit/retention.ts), and the topic of purges alone.
 */
export const AUDIT_TOPIC = "audit";
export const AUDIT_PURGE_TOPIC = "audit-purge";

export interface AppendOptions {
  /** the entry's time (default now) */
  at?: Date;
  /** the transaction of the change the entry records; without it the entry commits on its own */
  tx?: Sql;
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
  /** entries about exactly this target (a patient's id: the looks at their record) */
  target?: string;
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

/** an audit_entries row as the database holds it */
export interface AuditRow {
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

const toEntry = (r: AuditRow): AuditEntry => ({
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

/**
 * The key of a log built without an anchor (a module's own tests, tools that open a store alone):
 * known to anyone, so such a log is only as tamper-evident as a plain hash chain. The server always
 * builds its log with the anchor of its configuration (server/audit/key.ts, server/services.ts).
 */
const UNANCHORED = chainKey("audit log built without an anchor: tests and tools only");

const DELETE_REFUSED =
  "audit entries are append-only: only a retention purge removes one, leaving its tombstone";
/** DELETE only where retention has left the entry's tombstone; no TRUNCATE (PostgreSQL) */
const KEYED_SQLITE = [
  `CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_entries
    WHEN NOT EXISTS (SELECT 1 FROM audit_purged WHERE seq = OLD.seq)
    BEGIN SELECT RAISE(ABORT, '${DELETE_REFUSED}'); END`,
];
const KEYED_POSTGRES = [
  `CREATE FUNCTION audit_entries_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM audit_purged WHERE seq = OLD.seq) THEN
        RAISE EXCEPTION '${DELETE_REFUSED}';
      END IF;
      RETURN OLD;
    END $$`,
  `CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_no_delete()`,
  `CREATE FUNCTION audit_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'the audit log cannot be truncated'; END $$`,
  `CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_no_truncate()`,
  `CREATE TRIGGER audit_purged_no_truncate BEFORE TRUNCATE ON audit_purged
    FOR EACH STATEMENT EXECUTE FUNCTION audit_no_truncate()`,
];

/** the lock that keeps one chain when several instances append at once */
const CHAIN_LOCK = "audit-chain";
const VERIFY_PAGE = 5000;
/** a kind as the hub names them (lower case, digits, hyphens): safe to write into a query as text */
export const KIND_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;

/** a retention tombstone's signature: what it stands for, and when it was purged */
const tombstoneSig = (
  key: ChainKey,
  t: { seq: number; kind: string; timestamp: string; prev_hash: string; hash: string; purged_at: string },
) => key.sign("tombstone", [Number(t.seq), t.kind, t.timestamp, t.prev_hash, t.hash, t.purged_at]);

export async function createAuditLog(rel: Relational, db?: Db, anchor?: AuditAnchor) {
  const key = anchor?.key ?? UNANCHORED;
  // the looks at one patient's record (server/audit/access-log.ts) are read by target: an index of
  // the patient entries alone, so that no other append pays for it
  const PATIENT_INDEX = `CREATE INDEX audit_entries_patient ON audit_entries (target, seq) WHERE kind = 'patient'`;
  const newest = async (q: Sql, table: "audit_entries" | "audit_purged") =>
    (await q.selectFrom(table).select(["seq", "hash"]).orderBy("seq", "desc").limit(1).executeTakeFirst()) as
      { seq: number; hash: string } | undefined;
  // the chain's head: the newest entry, or the tombstone of a newer purged one
  async function head(q: Sql): Promise<{ seq: number; hash: string } | undefined> {
    const e = await newest(q, "audit_entries");
    const t = await newest(q, "audit_purged");
    const h = t && (!e || Number(t.seq) > Number(e.seq)) ? t : e;
    return h && { seq: Number(h.seq), hash: h.hash };
  }

  await rel.migrate("audit-1", async (m, dialect) => {
    await m.schema
      .createTable("audit_entries")
      .addColumn("seq", dialect === "postgres" ? "bigint" : "integer", (c) => c.primaryKey())
      .addColumn("id", "text", (c) => c.notNull().unique())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("target", "text", (c) => c.notNull())
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("timestamp", "text", (c) => c.notNull())
      .addColumn("prev_hash", "text", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull())
      .execute();
    await m.schema.createIndex("audit_entries_kind").on("audit_entries").columns(["kind", "seq"]).execute();
    // append-only: the database itself refuses to change an entry
    for (const s of appendOnlyDdl(dialect, "audit_entries", "audit entries are append-only", true))
      await rawDdl(m, s);
  });
  // retention purges leave a tombstone per removed entry, so that the chain stays verifiable
  await rel.migrate("audit-2-purged", async (m, dialect) => {
    await m.schema
      .createTable("audit_purged")
      .addColumn("seq", dialect === "postgres" ? "bigint" : "integer", (c) => c.primaryKey())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("timestamp", "text", (c) => c.notNull())
      .addColumn("prev_hash", "text", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("purged_at", "text", (c) => c.notNull())
      .execute();
    await m.schema
      .createIndex("audit_entries_timestamp")
      .on("audit_entries")
      .columns(["kind", "timestamp"])
      .execute();
    for (const s of appendOnlyDdl(dialect, "audit_purged", "audit tombstones are append-only"))
      await rawDdl(m, s);
  });
  // the chain keyed (decision 0044): entries after the head of this moment are HMACs under the key; the
  // entries before keep their plain hashes, and a marker signed with the key says where the keyed part
  // starts and which hash it continues from, so that the old part still verifies and cannot be rebuilt
  await rel.migrate("audit-3-keyed", async (m, dialect) => {
    await m.schema
      .createTable("audit_anchor")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("seq", dialect === "postgres" ? "bigint" : "integer", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("sig", "text", (c) => c.notNull())
      .execute();
    await m.schema.alterTable("audit_purged").addColumn("sig", "text").execute();
    const h = await head(m);
    const from = { seq: (h?.seq ?? 0) + 1, hash: h?.hash ?? GENESIS_HASH };
    await m
      .insertInto("audit_anchor")
      .values({ name: "keyed-from", ...from, sig: key.sign("keyed-from", [from.seq, from.hash]) })
      .execute();
    for (const s of dialect === "postgres" ? KEYED_POSTGRES : KEYED_SQLITE) await rawDdl(m, s);
  });

  await rel.migrate("audit-4-patient-index", async (m) => rawDdl(m, PATIENT_INDEX));

  const toRow = ({ prevHash, ...e }: AuditEntry): AuditRow => ({ ...e, prev_hash: prevHash });

  // the embedded graph store's synchronous append on the embedded store's own handle
  const sync = db && rel.dialect === "sqlite" ? syncAppender(db, key) : undefined;

  // one version bump per transaction, however many entries it appends (a batch holds hundreds); an
  // append on the store itself (no transaction) commits alone, and is told alone
  const bumped = new WeakSet<Sql>();
  async function bumpOnce(tx: Sql) {
    if (bumped.has(tx)) return;
    if (tx !== rel.db) bumped.add(tx);
    await rel.changes.bump(tx, AUDIT_TOPIC);
  }
  /**
   * The synchronous appends (embedded store only) run inside a better-sqlite3 transaction, or a
   * transaction of the one connection, that commits before any other query of this process runs: the
   * in-process change feed may be told at once (a rolled-back append only costs a cache a rebuild).
   */
  const appendSync = (entries: AuditBatch, what: string) => {
    if (!sync) throw new Error(`${what} is only available on the embedded store`);
    const appended = sync.append(entries);
    void rel.changes.notify(AUDIT_TOPIC);
    return appended;
  };

  // kinds(): counted once over the whole log, then brought up to date from the entries appended since.
  // The log is append-only and one chain: an entry's seq is the head's plus one under the chain lock,
  // so entries commit in seq order and those up to a seq seen once never change — but by a purge,
  // which moves AUDIT_PURGE_TOPIC and makes the count start over. Calls run one after another.
  type Tally = {
    purges: number;
    upTo: number;
    live: Map<string, { entries: number; oldest: string | null }>;
    gone: Map<string, number>;
  };
  let tally: Tally | undefined;
  let tallying: Promise<unknown> = Promise.resolve();
  const liveKinds = async (after: number, upTo: number) =>
    (await rel.db
      .selectFrom("audit_entries")
      .select((eb) => ["kind", eb.fn.countAll().as("n"), eb.fn.min("timestamp").as("oldest")])
      .where("seq", ">", after)
      .where("seq", "<=", upTo)
      .groupBy("kind")
      .execute()) as { kind: string; n: number; oldest: string | null }[];
  async function tallyKinds(): Promise<AuditKindStats[]> {
    const purges = await rel.changes.fresh(AUDIT_PURGE_TOPIC);
    const upTo = Number((await newest(rel.db, "audit_entries"))?.seq ?? 0);
    if (!tally || tally.purges !== purges) {
      const gone = (await rel.db
        .selectFrom("audit_purged")
        .select((eb) => ["kind", eb.fn.countAll().as("n")])
        .groupBy("kind")
        .execute()) as { kind: string; n: number }[];
      tally = { purges, upTo: 0, live: new Map(), gone: new Map(gone.map((g) => [g.kind, Number(g.n)])) };
    }
    if (upTo > tally.upTo) {
      for (const l of await liveKinds(tally.upTo, upTo)) {
        const had = tally.live.get(l.kind);
        const oldest = had?.oldest && (!l.oldest || had.oldest < l.oldest) ? had.oldest : l.oldest;
        tally.live.set(l.kind, { entries: (had?.entries ?? 0) + Number(l.n), oldest });
      }
      tally.upTo = upTo;
    }
    const out = new Map<string, AuditKindStats>();
    for (const [kind, l] of tally.live) out.set(kind, { kind, ...l, purged: 0 });
    for (const [kind, n] of tally.gone)
      out.set(kind, { ...(out.get(kind) ?? { kind, entries: 0, oldest: null }), purged: n });
    return [...out.values()].sort((a, b) => a.kind.localeCompare(b.kind));
  }

  /** entries in all, or those of `kind` older than `before` */
  async function countEntries(kind?: string, before?: string) {
    let q = rel.db.selectFrom("audit_entries").select((eb) => eb.fn.countAll().as("n"));
    if (kind !== undefined) q = q.where("kind", "=", kind).where("timestamp", "<", before!);
    return Number(((await q.executeTakeFirstOrThrow()) as { n: number }).n);
  }

  const log = {
    append(input: AuditInput, opts: AppendOptions = {}) {
      return rel.within(opts.tx, async (tx) => {
        await rel.lock(tx, CHAIN_LOCK);
        const entry = entryAfter(await head(tx), input, opts.at ?? new Date(), key);
        await tx.insertInto("audit_entries").values(toRow(entry)).execute();
        await bumpOnce(tx);
        return entry;
      });
    },
    /** true when `appendSync` works: the log lives in the embedded store's own SQLite handle */
    embedded: !!sync,
    /**
     * Embedded store only: the synchronous append of the embedded graph store, whose graph statements
     * and audit entry commit in one better-sqlite3 transaction on the same file. Throws on PostgreSQL
     * (the embedded graph then appends with `append` after its own commit).
     */
    appendSync: (input: AuditInput, at = new Date()) => appendSync([{ input, at }], "appendSync")[0]!,
    /**
     * Embedded store only: `appendSync` of several entries in order, the chain's head read once (the
     * caller's transaction holds the store, so nothing else is appended in between).
     */
    appendSyncBatch: (entries: AuditBatch) => appendSync(entries, "appendSyncBatch"),
    async list(filter: AuditFilter = {}) {
      const q = filter.q?.trim().toLowerCase();
      const like = q ? `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
      let query = rel.db.selectFrom("audit_entries").selectAll();
      const eq: [string, string | undefined][] = [
        ["kind", filter.kind],
        ["actor", filter.actor],
        ["action", filter.action],
        ["outcome", filter.outcome],
      ];
      for (const [col, v] of eq)
        if (v !== undefined && v !== "")
          // a kind of entry names as text (as the partial index's condition is), so that the index applies
          query =
            col === "kind" && KIND_PATTERN.test(v)
              ? query.where(sql<boolean>`kind = ${sql.lit(v)}`)
              : query.where(col, "=", v);
      if (filter.target !== undefined) query = query.where("target", "=", filter.target);
      if (filter.since) query = query.where("timestamp", ">=", filter.since);
      if (filter.until) query = query.where("timestamp", "<", filter.until);
      if (filter.beforeSeq !== undefined) query = query.where("seq", "<", filter.beforeSeq);
      if (like)
        query = query.where(
          sql<boolean>`(lower(action) LIKE ${like} ESCAPE '\\' OR lower(actor) LIKE ${like} ESCAPE '\\' OR lower(target) LIKE ${like} ESCAPE '\\')`,
        );
      if (filter.kinds)
        query = filter.kinds.length
          ? query.where("kind", "in", filter.kinds)
          : query.where(sql<boolean>`1 = 0`);
      const rows = (await query
        .orderBy("seq", "desc")
        .limit(filter.limit ?? 100)
        .execute()) as AuditRow[];
      return rows.map((r) => toEntry({ ...r, seq: Number(r.seq) }));
    },
    count: () => countEntries(),
    /**
     * walks the chain; reports the first entry whose keyed hash or link does not match, a tombstone not
     * signed with the key, or a checkpoint the chain does not hold (an entry rewritten, the newest
     * entries deleted, the table truncated)
     */
    async verify(): Promise<AuditVerification> {
      const broken = (checked: number, seq: number, id: string, reason: string): AuditVerification => ({
        ok: false,
        checked,
        firstBroken: { seq, id, reason },
      });
      // where the keyed chain starts, signed: entries before it keep their plain SHA-256 hashes
      const marker = (await rel.db
        .selectFrom("audit_anchor")
        .select(["seq", "hash", "sig"])
        .where("name", "=", "keyed-from")
        .executeTakeFirst()) as { seq: number; hash: string; sig: string } | undefined;
      if (!marker) return broken(0, 1, "keyed-from", "the marker of where the keyed chain starts is missing");
      const keyedFrom = Number(marker.seq);
      if (marker.sig !== key.sign("keyed-from", [keyedFrom, marker.hash]))
        return broken(
          0,
          keyedFrom,
          "keyed-from",
          "the marker of where the keyed chain starts is not signed with this audit key (was AUDIT_KEY or the key file changed?)",
        );
      // the checkpoints kept outside the database
      const read = anchor?.checkpoints?.read() ?? { checkpoints: [] };
      if (read.bad)
        return broken(
          0,
          0,
          `checkpoint-line-${read.bad.line}`,
          `line ${read.bad.line} of the checkpoint file is ${read.bad.reason}`,
        );
      const checkpoints = new Map<number, Checkpoint>();
      let newestCheckpoint: Checkpoint | undefined;
      for (const c of read.checkpoints) {
        checkpoints.set(c.seq, c);
        if (!newestCheckpoint || c.seq > newestCheckpoint.seq) newestCheckpoint = c;
      }

      let prevHash = GENESIS_HASH;
      let expectedSeq: number | null = null;
      let checked = 0;
      let lastSeq = 0;
      // entries and the tombstones of purged entries, in chain order, a page at a time
      for (let after = 0; ;) {
        const entries = (await rel.db
          .selectFrom("audit_entries")
          .selectAll()
          .where("seq", ">", after)
          .orderBy("seq")
          .limit(VERIFY_PAGE)
          .execute()) as AuditRow[];
        const upTo = entries.length === VERIFY_PAGE ? Number(entries[entries.length - 1].seq) : undefined;
        let tq = rel.db.selectFrom("audit_purged").selectAll().where("seq", ">", after);
        if (upTo !== undefined) tq = tq.where("seq", "<=", upTo);
        const tombs = (await tq.orderBy("seq").execute()) as (Pick<
          AuditRow,
          "seq" | "kind" | "timestamp" | "prev_hash" | "hash"
        > & { purged_at: string; sig: string | null })[];
        const rows = [
          ...entries.map((r) => ({ ...r, seq: Number(r.seq), purged: false })),
          ...tombs.map((t) => ({ ...t, seq: Number(t.seq), id: null as string | null, purged: true })),
        ].sort((a, b) => a.seq - b.seq || Number(a.purged) - Number(b.purged));
        /** what is wrong with a row where it stands in the chain, if anything */
        const problem = (r: (typeof rows)[number]) => {
          if (expectedSeq !== null && r.seq !== expectedSeq)
            return r.seq < expectedSeq
              ? `entry ${r.seq} appears twice (entry and tombstone)`
              : `entry ${expectedSeq} is missing`;
          if (r.prev_hash !== prevHash) return "link to the previous entry does not match";
          if (r.seq === keyedFrom && r.prev_hash !== marker.hash)
            return "the keyed chain does not continue from the entry its marker names";
          const keyed = r.seq >= keyedFrom;
          if (!r.purged) {
            const e = toEntry(r as unknown as AuditRow);
            if ((keyed ? hashEntry(e, key) : legacyHashEntry(e)) !== e.hash)
              return "entry content does not match its hash";
          } else if (keyed && (r as { sig: string | null }).sig !== tombstoneSig(key, r as never))
            return "tombstone is not signed with the audit key";
        };
        for (const r of rows) {
          const id = r.id ?? `purged-${r.seq}`;
          const reason = problem(r);
          if (reason) return broken(checked, r.seq, id, reason);
          if (!r.purged) checked++;
          const checkpoint = checkpoints.get(r.seq);
          if (checkpoint && checkpoint.hash !== r.hash)
            return broken(
              checked,
              r.seq,
              id,
              `entry ${r.seq} differs from the checkpoint of ${checkpoint.at}: the chain was rewritten`,
            );
          prevHash = r.hash;
          expectedSeq = r.seq + 1;
          lastSeq = r.seq;
        }
        if (upTo === undefined) break;
        after = upTo;
      }
      // the chain ends before an entry it is known to have reached
      const first = lastSeq + 1;
      const missing = (upTo: number, why: string) =>
        broken(checked, first, `missing-${first}`, `entries ${first}–${upTo} are missing: ${why}`);
      if (keyedFrom > 1 && lastSeq < keyedFrom - 1)
        return missing(keyedFrom - 1, `the keyed chain starts after entry ${keyedFrom - 1}`);
      if (newestCheckpoint && lastSeq < newestCheckpoint.seq)
        return missing(
          newestCheckpoint.seq,
          `the checkpoint of ${newestCheckpoint.at} saw the chain reach ${newestCheckpoint.seq}`,
        );
      return { ok: true, checked };
    },
    /**
     * Appends a signed checkpoint of the chain's head to the checkpoint file when the head has moved
     * since the last one (none without a checkpoint file); the server calls it every few seconds.
     */
    async checkpoint() {
      const file = anchor?.checkpoints;
      if (!file) return null;
      const h = await head(rel.db);
      const last = file.last();
      if (!h || (last && last.seq >= h.seq)) return null;
      return file.append(h);
    },
    /** the key the chain is made with (the audit batch thread makes its entries with it) */
    key,
    /**
     * Retention purge (server/audit/retention.ts): removes the entries of `kind` older than `before`
     * (ISO date-time) and keeps a tombstone of each (seq, kind, timestamp, prevHash, hash), so the
     * chain still verifies across the gap: the links are checked, the removed content is gone.
     */
    async purge(kind: string, before: string, limit = 10_000) {
      return rel.tx(async (tx) => {
        await rel.lock(tx, CHAIN_LOCK);
        const victims = (await tx
          .selectFrom("audit_entries")
          .select(["seq", "kind", "timestamp", "prev_hash", "hash"])
          .where("kind", "=", kind)
          .where("timestamp", "<", before)
          .orderBy("seq")
          .limit(limit)
          .execute()) as Pick<AuditRow, "seq" | "kind" | "timestamp" | "prev_hash" | "hash">[];
        if (victims.length === 0) return 0;
        const purgedAt = new Date().toISOString();
        for (let i = 0; i < victims.length; i += 500) {
          const page = victims.slice(i, i + 500);
          await tx
            .insertInto("audit_purged")
            .values(
              page.map((v) => {
                const t = { ...v, seq: Number(v.seq), purged_at: purgedAt };
                return { ...t, sig: tombstoneSig(key, t) };
              }),
            )
            .execute();
          await tx
            .deleteFrom("audit_entries")
            .where(
              "seq",
              "in",
              page.map((v) => v.seq),
            )
            .execute();
        }
        await rel.changes.bump(tx, AUDIT_PURGE_TOPIC);
        await rel.changes.bump(tx, AUDIT_TOPIC);
        return victims.length;
      });
    },
    /** the entry kinds in the log, with counts, oldest entry and removed entries */
    kinds() {
      const next = tallying.then(tallyKinds);
      tallying = next.catch(() => {});
      return next;
    },
    /** entries of `kind` older than `before` (what a purge would remove) */
    countBefore: (kind: string, before: string) => countEntries(kind, before),
    /** the time of the oldest entry of `kind` at or after `from` (ISO date-time), or null */
    async oldestFrom(kind: string, from: string) {
      const r = (await rel.db
        .selectFrom("audit_entries")
        .select("timestamp")
        .where("kind", "=", kind)
        .where("timestamp", ">=", from)
        .orderBy("timestamp")
        .limit(1)
        .executeTakeFirst()) as { timestamp: string } | undefined;
      return r?.timestamp ?? null;
    },
    /**
     * The log's version (AUDIT_TOPIC of the change feed): it moves with every append and purge, made
     * here, by the audit batch thread or by another instance. Read from the store on PostgreSQL, so that
     * a read after an acknowledged write sees that write. Answers kept per version are current.
     */
    version: () => rel.changes.fresh(AUDIT_TOPIC),
  };
  // the checkpoints written before this start, then one of the head as this process finds it
  anchor?.checkpoints?.read();
  await log.checkpoint();
  return log;
}
