import { z } from "zod";
import { sql } from "kysely";
import type { AuditLog } from "../audit/log";
import {
  appendOnlyDdl,
  rawDdl,
  serialType,
  topicWriter,
  type Relational,
  type Sql,
} from "../storage/relational";

/**
 * The access body's records in the relational store (server/storage/relational): one table of
 * records (kind, id, state, the organisation concerned, a parent link and the record's fields as
 * JSON) and one append-only table of history entries. Every write happens in `tx`, one transaction
 * of the store: the record, its history entry and its audit entry are committed together or not at
 * all. An update checks the state it was validated against inside that transaction (the row changes
 * only `WHERE state = fromState`), so two instances moving the same record at once leave one transition.
 */

/** the change-feed topic of the access body's records (bumped in the transaction of every write) */
export const ACCESS_BODY_TOPIC = "access-body-records";

const recordKind = z.enum([
  "application",
  "dataRequest",
  "permit",
  "informationRequest",
  "finding",
  "result",
]);
export type RecordKind = z.infer<typeof recordKind>;

export interface StoredRecord<T = Record<string, unknown>> {
  id: string;
  kind: RecordKind;
  state: string;
  /** display name of the organisation the record concerns (applicant, subject of a finding, ...) */
  organisation: string;
  parentId: string | null;
  createdAt: string;
  updatedAt: string;
  data: T;
}

/** one entry of a record's history: a state change or an event, with its audit entry */
export const historyEntry = z.object({
  seq: z.number().int(),
  recordId: z.string(),
  kind: recordKind,
  at: z.string(),
  actor: z.string(),
  event: z.string(),
  fromState: z.string().nullable(),
  toState: z.string(),
  note: z.string().nullable(),
  auditId: z.string().nullable(),
});
export type HistoryEntry = z.infer<typeof historyEntry>;

export interface Actor {
  username: string;
  /** the role the actor acted in, e.g. HDAB_AUTHORITY, or "system" */
  role: string;
}

export interface ChangeInput {
  event: string;
  fromState: string | null;
  actor: Actor;
  note?: string;
  at: Date;
}

/** a step of a seeded record's history, dated by the story it tells */
export type SeedStep = Omit<ChangeInput, "at"> & { at: string; toState: string };

/** a record's columns under their names in StoredRecord (its `data` still the JSON text) */
const RECORD_COLUMNS = [
  "id",
  "kind",
  "state",
  "organisation",
  "parent_id as parentId",
  "created_at as createdAt",
  "updated_at as updatedAt",
  "data",
] as const;
type RecordRow = Omit<StoredRecord, "data"> & { data: string };
const toRecord = <T>(r: RecordRow): StoredRecord<T> => ({ ...r, data: JSON.parse(r.data) as T });

/** a history entry's columns under their names in HistoryEntry */
const HISTORY_COLUMNS = [
  "seq",
  "record_id as recordId",
  "kind",
  "at",
  "actor",
  "event",
  "from_state as fromState",
  "to_state as toState",
  "note",
  "audit_id as auditId",
] as const;

export const AUDIT_KIND = "access-body";

export interface ListFilter {
  organisation?: string;
  parentId?: string;
  state?: string;
  /** a page of the list, in its order (created_at, id) */
  limit?: number;
  offset?: number;
}

/** the reads of the store, on the store itself or inside an open transaction */
function reads(q: Sql, dialect: Relational["dialect"]) {
  // ids compare byte-wise on both stores (SQLite's BINARY, PostgreSQL's "C" collation)
  const byId = dialect === "postgres" ? sql`id COLLATE "C"` : sql`id`;
  return {
    async get<T>(id: string): Promise<StoredRecord<T> | undefined> {
      const r = (await q
        .selectFrom("ab_records")
        .select(RECORD_COLUMNS)
        .where("id", "=", id)
        .executeTakeFirst()) as RecordRow | undefined;
      return r ? toRecord<T>(r) : undefined;
    },
    async list<T>(kind: RecordKind, filter: ListFilter = {}): Promise<StoredRecord<T>[]> {
      let query = q.selectFrom("ab_records").select(RECORD_COLUMNS).where("kind", "=", kind);
      const conditions: [string, string | undefined][] = [
        ["organisation", filter.organisation],
        ["parent_id", filter.parentId],
        ["state", filter.state],
      ];
      for (const [col, value] of conditions) if (value !== undefined) query = query.where(col, "=", value);
      query = query.orderBy("created_at").orderBy(byId);
      if (filter.limit !== undefined || filter.offset)
        query = query.limit(filter.limit ?? Number.MAX_SAFE_INTEGER).offset(filter.offset ?? 0);
      const rows = (await query.execute()) as RecordRow[];
      return rows.map((r) => toRecord<T>(r));
    },
    /** ids with a given prefix, for numbering (case-insensitive, as SQLite's LIKE always was) */
    async idsWithPrefix(prefix: string): Promise<string[]> {
      const pattern = `${prefix.replace(/[\\%_]/g, "\\$&")}%`;
      const rows = (await q
        .selectFrom("ab_records")
        .select("id")
        .where(sql<boolean>`lower(id) LIKE lower(${pattern}) ESCAPE '\\'`)
        .execute()) as { id: string }[];
      return rows.map((r) => r.id);
    },
    async meta(key: string): Promise<string | undefined> {
      const r = (await q.selectFrom("ab_meta").select("value").where("key", "=", key).executeTakeFirst()) as
        { value: string } | undefined;
      return r?.value;
    },
  };
}

const insertRecord = (t: Sql, rec: StoredRecord<unknown>) =>
  t
    .insertInto("ab_records")
    .values({
      id: rec.id,
      kind: rec.kind,
      state: rec.state,
      organisation: rec.organisation,
      parent_id: rec.parentId,
      created_at: rec.createdAt,
      updated_at: rec.updatedAt,
      data: JSON.stringify(rec.data),
    })
    .execute();
/** the history entries of `rec`'s steps, each with the audit entry `auditId` */
const writeHistory = (t: Sql, rec: StoredRecord<unknown>, steps: SeedStep[], auditId: string) =>
  steps.length
    ? t
        .insertInto("ab_history")
        .values(
          steps.map((s) => ({
            record_id: rec.id,
            kind: rec.kind,
            at: s.at,
            actor: `${s.actor.username} (${s.actor.role})`,
            event: s.event,
            from_state: s.fromState,
            to_state: s.toState,
            note: s.note ?? null,
            audit_id: auditId,
          })),
        )
        .execute()
    : Promise.resolve([]);

/** the writer of one open transaction: its reads see the transaction's own writes */
export function createRecordWriter(t: Sql, rel: Relational, audit: AuditLog) {
  const r = reads(t, rel.dialect);

  async function record(rec: StoredRecord, change: ChangeInput, isNew: boolean): Promise<StoredRecord> {
    const at = change.at.toISOString();
    const row = { ...rec, updatedAt: at };
    if (isNew) {
      await insertRecord(t, row);
    } else {
      // the state the caller validated against, checked by the write itself: a concurrent
      // transition of the same record (another instance) leaves this one changing no row
      let update = t
        .updateTable("ab_records")
        .set({ state: row.state, updated_at: at, data: JSON.stringify(row.data) })
        .where("id", "=", row.id);
      if (change.fromState !== null) update = update.where("state", "=", change.fromState);
      const done = await update.executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) {
        const current = await r.get(row.id);
        if (!current) throw new Error(`record ${rec.id} does not exist`);
        throw new Error(
          `record ${rec.id} changed concurrently (${current.state}, expected ${change.fromState})`,
        );
      }
    }
    const entry = await audit.append(
      {
        action: `${rec.kind}.${change.event}`,
        actor: change.actor.username,
        target: rec.id,
        kind: AUDIT_KIND,
        outcome: "success",
      },
      { at: change.at, tx: t },
    );
    const { actor, event, fromState, note } = change;
    await writeHistory(t, rec, [{ at, actor, event, fromState, toState: rec.state, note }], entry.id);
    return row;
  }

  return {
    ...r,
    /**
     * A demonstration record with its whole history (seed.ts): the history entries keep the dates of
     * the story they tell; one audit entry, written now by "system", records that they were seeded.
     */
    async seed<T>(rec: StoredRecord<T>, steps: SeedStep[], at: Date): Promise<StoredRecord<T>> {
      await insertRecord(t, rec);
      const entry = await audit.append(
        { action: `${rec.kind}.seed`, actor: "system", target: rec.id, kind: AUDIT_KIND, outcome: "seeded" },
        { at, tx: t },
      );
      await writeHistory(t, rec, steps, entry.id);
      return rec;
    },
    /** a new record: written with its creation history entry and audit entry */
    async create<T>(rec: StoredRecord<T>, change: Omit<ChangeInput, "fromState">): Promise<StoredRecord<T>> {
      return (await record(rec as StoredRecord, { ...change, fromState: null }, true)) as StoredRecord<T>;
    },
    /**
     * a changed record: the caller has validated the transition from `change.fromState`; the write
     * fails when the record is no longer in that state
     */
    async update<T>(rec: StoredRecord<T>, change: ChangeInput): Promise<StoredRecord<T>> {
      return (await record(rec as StoredRecord, change, false)) as StoredRecord<T>;
    },
    async setMeta(key: string, value: string): Promise<void> {
      await t
        .insertInto("ab_meta")
        .values({ key, value })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
        .execute();
    },
    /** serialises this transaction with every other one taking `name`, across instances */
    lock: (name: string) => rel.lock(t, name),
  };
}

export async function createRecordStore(rel: Relational, audit: AuditLog) {
  await rel.migrate("access-body-1", async (m, dialect) => {
    await m.schema
      .createTable("ab_records")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("organisation", "text", (c) => c.notNull())
      .addColumn("parent_id", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("data", "text", (c) => c.notNull())
      .execute();
    await m.schema.createIndex("ab_records_kind").on("ab_records").columns(["kind", "state"]).execute();
    await m.schema.createIndex("ab_records_parent").on("ab_records").column("parent_id").execute();
    await m.schema
      .createTable("ab_history")
      // SQLite: INTEGER PRIMARY KEY (the rowid; rows are never deleted, so numbers are not reused)
      .addColumn("seq", serialType(dialect), (c) => c.primaryKey())
      .addColumn("record_id", "text", (c) => c.notNull().references("ab_records.id"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("at", "text", (c) => c.notNull())
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("event", "text", (c) => c.notNull())
      .addColumn("from_state", "text")
      .addColumn("to_state", "text", (c) => c.notNull())
      .addColumn("note", "text")
      .addColumn("audit_id", "text")
      .execute();
    await m.schema.createIndex("ab_history_record").on("ab_history").columns(["record_id", "seq"]).execute();
    for (const s of appendOnlyDdl(dialect, "ab_history", "access-body history is append-only"))
      await rawDdl(m, s);
    await m.schema
      .createTable("ab_meta")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
  });

  const r = reads(rel.db, rel.dialect);
  const writer = topicWriter(rel, ACCESS_BODY_TOPIC);
  /** the history entries of one record, or of all, in their order */
  async function historyOf(id?: string): Promise<HistoryEntry[]> {
    let query = rel.db.selectFrom("ab_history").select(HISTORY_COLUMNS);
    if (id !== undefined) query = query.where("record_id", "=", id);
    return (await query.orderBy("seq").execute()) as HistoryEntry[];
  }
  return {
    /** runs `fn` in one transaction; everything written through `w` commits together */
    tx: <R>(fn: (w: RecordWriter) => Promise<R>): Promise<R> =>
      writer.tx((t) => fn(createRecordWriter(t, rel, audit))),
    /** the records' version, another instance's acknowledged write included (topicVersion): views' caches key by it */
    version: writer.fresh,
    ...r,
    async count(): Promise<number> {
      const query = rel.db.selectFrom("ab_records").select((eb) => eb.fn.countAll().as("n"));
      const row = (await query.executeTakeFirstOrThrow()) as { n: number | string };
      return Number(row.n);
    },
    history: (id: string) => historyOf(id),
    allHistory: () => historyOf(),
  };
}

export type RecordStore = Awaited<ReturnType<typeof createRecordStore>>;
export type RecordWriter = ReturnType<typeof createRecordWriter>;
