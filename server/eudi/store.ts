import { migrate, type Db } from "../storage/database";

/**
 * Wallet sign-in transactions in the embedded database, so a sign-in in flight survives a restart.
 * `status` is pending | completed | failed; "expired" is derived from `expires_at` when reading.
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
  status: "pending" | "completed" | "failed";
  reason: string | null;
  patient_id: string | null;
  user_json: string | null;
  created_at: number;
  expires_at: number;
  request_fetched_at: number | null;
  responded_at: number | null;
  completed_at: number | null;
  session_issued_at: number | null;
}

export function createEudiStore(db: Db) {
  migrate(db, "eudi-sessions-1", [
    `CREATE TABLE eudi_sessions (
      sid TEXT PRIMARY KEY,
      binding_hash TEXT NOT NULL,
      mode TEXT NOT NULL,
      request_id TEXT UNIQUE,
      state TEXT UNIQUE,
      nonce TEXT NOT NULL,
      client_id TEXT NOT NULL,
      transaction_id TEXT,
      wallet_link TEXT NOT NULL,
      return_to TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending',
      reason TEXT,
      patient_id TEXT,
      user_json TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      request_fetched_at INTEGER,
      responded_at INTEGER,
      completed_at INTEGER,
      session_issued_at INTEGER
    )`,
    "CREATE INDEX eudi_sessions_created ON eudi_sessions(created_at)",
  ]);
  const stmts = {
    insert: db.prepare(
      `INSERT INTO eudi_sessions (sid, binding_hash, mode, request_id, state, nonce, client_id, transaction_id, wallet_link, return_to, created_at, expires_at)
       VALUES (@sid, @binding_hash, @mode, @request_id, @state, @nonce, @client_id, @transaction_id, @wallet_link, @return_to, @created_at, @expires_at)`,
    ),
    bySid: db.prepare("SELECT * FROM eudi_sessions WHERE sid = ?"),
    byRequestId: db.prepare("SELECT * FROM eudi_sessions WHERE request_id = ?"),
    byState: db.prepare("SELECT * FROM eudi_sessions WHERE state = ?"),
    fetched: db.prepare(
      "UPDATE eudi_sessions SET request_fetched_at = COALESCE(request_fetched_at, ?) WHERE sid = ?",
    ),
    /** the one wallet response a transaction accepts: only the first call changes a row */
    respond: db.prepare(
      "UPDATE eudi_sessions SET responded_at = ? WHERE sid = ? AND responded_at IS NULL AND status = 'pending'",
    ),
    complete: db.prepare(
      "UPDATE eudi_sessions SET status = 'completed', patient_id = ?, user_json = ?, completed_at = ? WHERE sid = ? AND status = 'pending'",
    ),
    fail: db.prepare(
      "UPDATE eudi_sessions SET status = 'failed', reason = ?, completed_at = ? WHERE sid = ? AND status = 'pending'",
    ),
    /** hands out the app session once: only the first call changes the row */
    claim: db.prepare(
      "UPDATE eudi_sessions SET session_issued_at = ? WHERE sid = ? AND status = 'completed' AND session_issued_at IS NULL",
    ),
    purge: db.prepare("DELETE FROM eudi_sessions WHERE created_at < ?"),
  };
  return {
    insert: (
      row: Pick<
        EudiRow,
        | "sid"
        | "binding_hash"
        | "mode"
        | "request_id"
        | "state"
        | "nonce"
        | "client_id"
        | "transaction_id"
        | "wallet_link"
        | "return_to"
        | "created_at"
        | "expires_at"
      >,
    ) => stmts.insert.run(row),
    bySid: (sid: string) => stmts.bySid.get(sid) as EudiRow | undefined,
    byRequestId: (id: string) => stmts.byRequestId.get(id) as EudiRow | undefined,
    byState: (state: string) => stmts.byState.get(state) as EudiRow | undefined,
    markFetched: (sid: string, now: number) => stmts.fetched.run(now, sid),
    markResponded: (sid: string, now: number) => stmts.respond.run(now, sid).changes === 1,
    complete: (sid: string, patientId: string, userJson: string, now: number) =>
      stmts.complete.run(patientId, userJson, now, sid).changes === 1,
    fail: (sid: string, reason: string, now: number) => stmts.fail.run(reason, now, sid).changes === 1,
    claim: (sid: string, now: number) => stmts.claim.run(now, sid).changes === 1,
    purgeOlderThan: (t: number) => stmts.purge.run(t).changes,
  };
}
export type EudiStore = ReturnType<typeof createEudiStore>;
