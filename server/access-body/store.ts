import type { AuditLog } from "../audit/log";
import { migrate, type Db } from "../storage/database";

/**
 * The access body's records in the embedded database: one table of records (kind, id, state, the
 * organisation concerned, a parent link and the record's fields as JSON) and one append-only table of
 * history entries. Every write happens in `tx`, which runs synchronously inside one SQLite
 * transaction: the record, its history entry and its audit entry are committed together or not at all.
 */

export type RecordKind =
  "application" | "dataRequest" | "permit" | "informationRequest" | "finding" | "result";

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

export interface HistoryEntry {
  seq: number;
  recordId: string;
  kind: RecordKind;
  at: string;
  actor: string;
  event: string;
  fromState: string | null;
  toState: string;
  note: string | null;
  auditId: string | null;
}

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
  /** history `at` when it differs from the write time (seeded records keep their original dates) */
  historyAt?: string;
  /** audit outcome, default "success" */
  outcome?: string;
}

export interface SeedStep {
  at: string;
  actor: Actor;
  event: string;
  fromState: string | null;
  toState: string;
  note?: string;
}

interface RecordRow {
  id: string;
  kind: RecordKind;
  state: string;
  organisation: string;
  parent_id: string | null;
  created_at: string;
  updated_at: string;
  data: string;
}

interface HistoryRow {
  seq: number;
  record_id: string;
  kind: RecordKind;
  at: string;
  actor: string;
  event: string;
  from_state: string | null;
  to_state: string;
  note: string | null;
  audit_id: string | null;
}

const toRecord = <T>(r: RecordRow): StoredRecord<T> => ({
  id: r.id,
  kind: r.kind,
  state: r.state,
  organisation: r.organisation,
  parentId: r.parent_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  data: JSON.parse(r.data) as T,
});

const toHistory = (r: HistoryRow): HistoryEntry => ({
  seq: r.seq,
  recordId: r.record_id,
  kind: r.kind,
  at: r.at,
  actor: r.actor,
  event: r.event,
  fromState: r.from_state,
  toState: r.to_state,
  note: r.note,
  auditId: r.audit_id,
});

export const AUDIT_KIND = "access-body";

export interface ListFilter {
  organisation?: string;
  parentId?: string;
  state?: string;
}

export function createRecordStore(db: Db, audit: AuditLog) {
  migrate(db, "access-body-1", [
    `CREATE TABLE ab_records (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      state TEXT NOT NULL,
      organisation TEXT NOT NULL,
      parent_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      data TEXT NOT NULL
    )`,
    "CREATE INDEX ab_records_kind ON ab_records(kind, state)",
    "CREATE INDEX ab_records_parent ON ab_records(parent_id)",
    `CREATE TABLE ab_history (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      record_id TEXT NOT NULL REFERENCES ab_records(id),
      kind TEXT NOT NULL,
      at TEXT NOT NULL,
      actor TEXT NOT NULL,
      event TEXT NOT NULL,
      from_state TEXT,
      to_state TEXT NOT NULL,
      note TEXT,
      audit_id TEXT
    )`,
    "CREATE INDEX ab_history_record ON ab_history(record_id, seq)",
    `CREATE TRIGGER ab_history_no_update BEFORE UPDATE ON ab_history
      BEGIN SELECT RAISE(ABORT, 'access-body history is append-only'); END`,
    `CREATE TRIGGER ab_history_no_delete BEFORE DELETE ON ab_history
      BEGIN SELECT RAISE(ABORT, 'access-body history is append-only'); END`,
    "CREATE TABLE ab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  ]);

  const getStmt = db.prepare("SELECT * FROM ab_records WHERE id = ?");
  const insertStmt = db.prepare(
    `INSERT INTO ab_records (id, kind, state, organisation, parent_id, created_at, updated_at, data)
     VALUES (@id, @kind, @state, @organisation, @parentId, @createdAt, @updatedAt, @data)`,
  );
  const updateStmt = db.prepare(
    "UPDATE ab_records SET state = @state, updated_at = @updatedAt, data = @data WHERE id = @id",
  );
  const historyStmt = db.prepare(
    `INSERT INTO ab_history (record_id, kind, at, actor, event, from_state, to_state, note, audit_id)
     VALUES (@recordId, @kind, @at, @actor, @event, @fromState, @toState, @note, @auditId)`,
  );
  const historyOf = db.prepare("SELECT * FROM ab_history WHERE record_id = ? ORDER BY seq");
  const metaGet = db.prepare("SELECT value FROM ab_meta WHERE key = ?");
  const metaSet = db.prepare(
    "INSERT INTO ab_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );

  function record(rec: StoredRecord, change: ChangeInput, isNew: boolean): StoredRecord {
    const at = change.at.toISOString();
    const row = { ...rec, updatedAt: at, createdAt: isNew ? rec.createdAt : rec.createdAt };
    if (isNew) insertStmt.run({ ...row, data: JSON.stringify(row.data) });
    else updateStmt.run({ id: row.id, state: row.state, updatedAt: at, data: JSON.stringify(row.data) });
    const entry = audit.appendSync(
      {
        action: `${rec.kind}.${change.event}`,
        actor: change.actor.username,
        target: rec.id,
        kind: AUDIT_KIND,
        outcome: change.outcome ?? "success",
      },
      change.at,
    );
    historyStmt.run({
      recordId: rec.id,
      kind: rec.kind,
      at: change.historyAt ?? at,
      actor: `${change.actor.username} (${change.actor.role})`,
      event: change.event,
      fromState: change.fromState,
      toState: rec.state,
      note: change.note ?? null,
      auditId: entry.id,
    });
    return row;
  }

  const writer = {
    /**
     * A demonstration record with its whole history (seed.ts): the history entries keep the dates of
     * the story they tell; one audit entry, written now by "system", records that they were seeded.
     */
    seed<T>(rec: StoredRecord<T>, steps: SeedStep[], at: Date): StoredRecord<T> {
      insertStmt.run({ ...rec, data: JSON.stringify(rec.data) });
      const entry = audit.appendSync(
        { action: `${rec.kind}.seed`, actor: "system", target: rec.id, kind: AUDIT_KIND, outcome: "seeded" },
        at,
      );
      for (const s of steps) {
        historyStmt.run({
          recordId: rec.id,
          kind: rec.kind,
          at: s.at,
          actor: `${s.actor.username} (${s.actor.role})`,
          event: s.event,
          fromState: s.fromState,
          toState: s.toState,
          note: s.note ?? null,
          auditId: entry.id,
        });
      }
      return rec;
    },
    get<T>(id: string): StoredRecord<T> | undefined {
      const r = getStmt.get(id) as RecordRow | undefined;
      return r ? toRecord<T>(r) : undefined;
    },
    /** a new record: written with its creation history entry and audit entry */
    create<T>(rec: StoredRecord<T>, change: Omit<ChangeInput, "fromState">): StoredRecord<T> {
      return record(rec as StoredRecord, { ...change, fromState: null }, true) as StoredRecord<T>;
    },
    /** a changed record: the caller has validated the transition from `change.fromState` */
    update<T>(rec: StoredRecord<T>, change: ChangeInput): StoredRecord<T> {
      const current = getStmt.get(rec.id) as RecordRow | undefined;
      if (!current) throw new Error(`record ${rec.id} does not exist`);
      if (change.fromState !== null && current.state !== change.fromState) {
        throw new Error(
          `record ${rec.id} changed concurrently (${current.state}, expected ${change.fromState})`,
        );
      }
      return record(rec as StoredRecord, change, false) as StoredRecord<T>;
    },
  };

  return {
    /** runs `fn` in one transaction; everything written through `w` commits together */
    tx<R>(fn: (w: typeof writer) => R): R {
      return db.transaction(() => fn(writer))();
    },
    get<T>(id: string): StoredRecord<T> | undefined {
      return writer.get<T>(id);
    },
    list<T>(kind: RecordKind, filter: ListFilter = {}): StoredRecord<T>[] {
      const where = ["kind = ?"];
      const args: unknown[] = [kind];
      const conditions: [string, string | undefined][] = [
        ["organisation = ?", filter.organisation],
        ["parent_id = ?", filter.parentId],
        ["state = ?", filter.state],
      ];
      for (const [sql, value] of conditions) {
        if (value === undefined) continue;
        where.push(sql);
        args.push(value);
      }
      const rows = db
        .prepare(`SELECT * FROM ab_records WHERE ${where.join(" AND ")} ORDER BY created_at, id`)
        .all(...args) as RecordRow[];
      return rows.map((r) => toRecord<T>(r));
    },
    count(kind?: RecordKind): number {
      const row = (
        kind
          ? db.prepare("SELECT COUNT(*) AS n FROM ab_records WHERE kind = ?").get(kind)
          : db.prepare("SELECT COUNT(*) AS n FROM ab_records").get()
      ) as {
        n: number;
      };
      return row.n;
    },
    history(id: string): HistoryEntry[] {
      return (historyOf.all(id) as HistoryRow[]).map(toHistory);
    },
    allHistory(): HistoryEntry[] {
      return (db.prepare("SELECT * FROM ab_history ORDER BY seq").all() as HistoryRow[]).map(toHistory);
    },
    /** ids of a kind with a given prefix, for numbering */
    idsWithPrefix(prefix: string): string[] {
      return (
        db
          .prepare("SELECT id FROM ab_records WHERE id LIKE ? ESCAPE '\\'")
          .all(`${prefix.replace(/[\\%_]/g, "\\$&")}%`) as { id: string }[]
      ).map((r) => r.id);
    },
    meta(key: string): string | undefined {
      return (metaGet.get(key) as { value: string } | undefined)?.value;
    },
    setMeta(key: string, value: string): void {
      metaSet.run(key, value);
    },
  };
}

export type RecordStore = ReturnType<typeof createRecordStore>;
export type RecordWriter = Parameters<Parameters<RecordStore["tx"]>[0]>[0];
