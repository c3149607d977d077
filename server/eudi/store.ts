import { createKept, EVERYONE } from "../http/kept";
import { columnsOf, withTimes, type Relational, type Sql } from "../storage/relational";

/**
 * Wallet sign-in transactions in the relational store, so a sign-in in flight survives a restart and
 * one started on one instance can be answered and collected on another. `status` is pending |
 * completed | failed; "expired" is derived from `expires_at` when reading. The writes take the
 * transaction of the change they belong to (`tx`), so a state change and its audit entry commit together.
 */
export interface EudiRow {
  sid: string;
  binding_hash: string;
  mode: "embedded" | "remote";
  request_id: string | null;
  state: string | null;
  nonce: string;
  client_id: string;
  transaction_id: string | null;
  wallet_link: string;
  return_to: string;
  created_at: number;
  expires_at: number;
  status: "pending" | "completed" | "failed";
  reason: string | null;
  patient_id: string | null;
  user_json: string | null;
  request_fetched_at: number | null;
  responded_at: number | null;
  completed_at: number | null;
  session_issued_at: number | null;
}
/** a sign-in as it starts: the columns an insert writes */
const NEW_COLUMNS = [
  "sid",
  "binding_hash",
  "mode",
  "request_id",
  "state",
  "nonce",
  "client_id",
  "transaction_id",
  "wallet_link",
  "return_to",
  "created_at",
  "expires_at",
] as const;

/** the rows kept by sid, per store handle (see bySid) */
const keptRows = new WeakMap<
  Relational,
  { writes: number; rows: ReturnType<typeof createKept<EudiRow | undefined>> }
>();

export async function createEudiStore(rel: Relational) {
  await rel.migrate("eudi-sessions-1", async (m) => {
    await m.schema
      .createTable("eudi_sessions")
      .addColumn("sid", "text", (c) => c.primaryKey())
      .addColumn("binding_hash", "text", (c) => c.notNull())
      .addColumn("mode", "text", (c) => c.notNull())
      .addColumn("request_id", "text", (c) => c.unique())
      .addColumn("state", "text", (c) => c.unique())
      .addColumn("nonce", "text", (c) => c.notNull())
      .addColumn("client_id", "text", (c) => c.notNull())
      .addColumn("transaction_id", "text")
      .addColumn("wallet_link", "text", (c) => c.notNull())
      .addColumn("return_to", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
      .addColumn("reason", "text")
      .addColumn("patient_id", "text")
      .addColumn("user_json", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("request_fetched_at", "bigint")
      .addColumn("responded_at", "bigint")
      .addColumn("completed_at", "bigint")
      .addColumn("session_issued_at", "bigint")
      .execute();
    await m.schema.createIndex("eudi_sessions_created").on("eudi_sessions").column("created_at").execute();
  });
  const { db } = rel;
  const by = async (column: "sid" | "request_id" | "state", value: string) => {
    const r = await db.selectFrom("eudi_sessions").selectAll().where(column, "=", value).executeTakeFirst();
    return r ? withTimes(r as EudiRow) : undefined;
  };

  /*
   * The rows read by sid (the browser's status poll, every second or two per sign-in), kept on the
   * embedded store only: there every write to the table goes through this module (its stores on one
   * handle share the count below), one at a time on one connection. Writes are counted when each
   * begins and again when it ends, and a row is kept under the count its read began at, so a row read
   * while the count moved is never found again. On PostgreSQL another instance writes too: every read
   * asks the store.
   */
  const keepRows = rel.dialect === "sqlite";
  const k = keptRows.get(rel) ?? { writes: 0, rows: createKept<EudiRow | undefined>({ max: 1000 }) };
  keptRows.set(rel, k);
  const counted = async <T>(write: () => Promise<T>): Promise<T> => {
    k.writes++;
    try {
      return await write();
    } finally {
      k.writes++;
    }
  };
  /** a counted update of the row while it has `status` (and `unset` is still null): true when it changed it */
  async function moveOne(
    tx: Sql,
    sid: string,
    status: EudiRow["status"],
    set: Partial<EudiRow>,
    unset?: keyof EudiRow,
  ) {
    return counted(async () => {
      let q = tx.updateTable("eudi_sessions").set(set).where("sid", "=", sid).where("status", "=", status);
      if (unset) q = q.where(unset, "is", null);
      return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
    });
  }
  async function bySid(sid: string): Promise<EudiRow | undefined> {
    if (!keepRows) return by("sid", sid);
    return k.rows({ caller: EVERYONE, versions: [k.writes], args: [sid] }, () => by("sid", sid));
  }

  return {
    insert: (row: Pick<EudiRow, (typeof NEW_COLUMNS)[number]>, tx: Sql = db) =>
      counted(async () => {
        await tx.insertInto("eudi_sessions").values(columnsOf(row, NEW_COLUMNS)).execute();
      }),
    /** one sign-in's row; shared with other readers (kept on the embedded store): read it only */
    bySid,
    byRequestId: (id: string) => by("request_id", id),
    byState: (state: string) => by("state", state),
    markFetched: (sid: string, now: number) =>
      counted(async () => {
        await db
          .updateTable("eudi_sessions")
          .set((eb) => ({ request_fetched_at: eb.fn.coalesce("request_fetched_at", eb.val(now)) }))
          .where("sid", "=", sid)
          .execute();
      }),
    /** the one wallet response a transaction accepts: only the first call changes a row */
    markResponded: (sid: string, now: number) =>
      moveOne(db, sid, "pending", { responded_at: now }, "responded_at"),
    complete: (sid: string, patientId: string, userJson: string, now: number, tx: Sql = db) =>
      moveOne(tx, sid, "pending", {
        status: "completed",
        patient_id: patientId,
        user_json: userJson,
        completed_at: now,
      }),
    fail: (sid: string, reason: string, now: number, tx: Sql = db) =>
      moveOne(tx, sid, "pending", { status: "failed", reason, completed_at: now }),
    /** hands out the app session once: only the first call changes the row */
    claim: (sid: string, now: number, tx: Sql = db) =>
      moveOne(tx, sid, "completed", { session_issued_at: now }, "session_issued_at"),
    purgeOlderThan: (t: number, tx: Sql = db) =>
      counted(async () =>
        Number(
          (await tx.deleteFrom("eudi_sessions").where("created_at", "<", t).executeTakeFirst())
            .numDeletedRows,
        ),
      ),
  };
}
export type EudiStore = Awaited<ReturnType<typeof createEudiStore>>;
