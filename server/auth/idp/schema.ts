import { migrate, type Db } from "../../storage/database";

/**
 * Tables of the embedded identity provider, in the app's SQLite file:
 * - `idp_payloads`: the oidc-provider artefacts (sessions, grants, codes, tokens, interactions),
 *   one row per model and id, with their expiry in epoch seconds;
 * - `idp_secrets`: values generated once and kept (signing key, cookie key, client secret).
 */
export function ensureIdpSchema(db: Db): void {
  migrate(db, "idp-1", [
    `CREATE TABLE idp_payloads (
       model TEXT NOT NULL,
       id TEXT NOT NULL,
       payload TEXT NOT NULL,
       grant_id TEXT,
       user_code TEXT,
       uid TEXT,
       expires_at INTEGER,
       consumed_at INTEGER,
       PRIMARY KEY (model, id)
     )`,
    "CREATE INDEX idp_payloads_grant ON idp_payloads (model, grant_id) WHERE grant_id IS NOT NULL",
    "CREATE INDEX idp_payloads_uid ON idp_payloads (model, uid) WHERE uid IS NOT NULL",
    "CREATE INDEX idp_payloads_user_code ON idp_payloads (model, user_code) WHERE user_code IS NOT NULL",
    "CREATE INDEX idp_payloads_expiry ON idp_payloads (expires_at) WHERE expires_at IS NOT NULL",
    `CREATE TABLE idp_secrets (
       name TEXT PRIMARY KEY,
       value TEXT NOT NULL,
       created_at TEXT NOT NULL
     )`,
  ]);
}
