import { migrate, type Db } from "../storage/database";

/**
 * The companion app's tables: attestation challenges, app accounts (each bound to one device key),
 * pairings, seen request-token ids (replay protection) and the EHR sync ledger.
 */

export interface AccountRow {
  id: string;
  key_thumbprint: string;
  public_jwk: string;
  device_name: string | null;
  platform: string | null;
  status: "active" | "revoked";
  created_at: number;
  patient_id: string | null;
  paired_at: number | null;
  pairing_id: string | null;
  revoked_at: number | null;
  revoked_by: string | null;
  last_seen_at: number | null;
}

export interface PairingRow {
  id: string;
  patient_id: string;
  code_hash: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
  account_id: string | null;
}

export interface ChallengeRow {
  nonce: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SyncItemRow {
  patient_id: string;
  resource_key: string;
  holder: string;
  hash: string;
  first_synced_at: number;
  last_changed_at: number;
}

export function createPatientAppStore(db: Db) {
  migrate(db, "patient-app-1", [
    `CREATE TABLE app_challenges (
      nonce TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    )`,
    "CREATE INDEX app_challenges_expires ON app_challenges(expires_at)",
    `CREATE TABLE app_accounts (
      id TEXT PRIMARY KEY,
      key_thumbprint TEXT NOT NULL UNIQUE,
      public_jwk TEXT NOT NULL,
      device_name TEXT,
      platform TEXT,
      status TEXT NOT NULL DEFAULT 'active',
      created_at INTEGER NOT NULL,
      patient_id TEXT,
      paired_at INTEGER,
      pairing_id TEXT,
      revoked_at INTEGER,
      revoked_by TEXT,
      last_seen_at INTEGER
    )`,
    "CREATE INDEX app_accounts_patient ON app_accounts(patient_id)",
    `CREATE TABLE app_pairings (
      id TEXT PRIMARY KEY,
      patient_id TEXT NOT NULL,
      code_hash TEXT NOT NULL UNIQUE,
      created_by TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      completed_at INTEGER,
      account_id TEXT
    )`,
    "CREATE INDEX app_pairings_patient ON app_pairings(patient_id)",
    `CREATE TABLE app_request_jtis (
      account_id TEXT NOT NULL,
      jti TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (account_id, jti)
    )`,
    "CREATE INDEX app_request_jtis_expires ON app_request_jtis(expires_at)",
    `CREATE TABLE app_sync_items (
      patient_id TEXT NOT NULL,
      resource_key TEXT NOT NULL,
      holder TEXT NOT NULL,
      hash TEXT NOT NULL,
      first_synced_at INTEGER NOT NULL,
      last_changed_at INTEGER NOT NULL,
      PRIMARY KEY (patient_id, resource_key)
    )`,
    `CREATE TABLE app_sync_runs (
      id TEXT PRIMARY KEY,
      patient_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      actor TEXT NOT NULL,
      added INTEGER NOT NULL,
      updated INTEGER NOT NULL,
      unchanged INTEGER NOT NULL,
      removed INTEGER NOT NULL
    )`,
    "CREATE INDEX app_sync_runs_patient ON app_sync_runs(patient_id, at)",
  ]);

  const s = {
    insertChallenge: db.prepare(
      "INSERT INTO app_challenges (nonce, created_at, expires_at) VALUES (?, ?, ?)",
    ),
    purgeChallenges: db.prepare("DELETE FROM app_challenges WHERE expires_at < ?"),
    consumeChallenge: db.prepare(
      "UPDATE app_challenges SET used_at = ? WHERE nonce = ? AND used_at IS NULL AND expires_at > ?",
    ),
    challenge: db.prepare("SELECT * FROM app_challenges WHERE nonce = ?"),

    insertAccount: db.prepare(
      `INSERT INTO app_accounts (id, key_thumbprint, public_jwk, device_name, platform, created_at)
       VALUES (@id, @key_thumbprint, @public_jwk, @device_name, @platform, @created_at)`,
    ),
    account: db.prepare("SELECT * FROM app_accounts WHERE id = ?"),
    accountByThumbprint: db.prepare("SELECT * FROM app_accounts WHERE key_thumbprint = ?"),
    accountsOfPatient: db.prepare(
      "SELECT * FROM app_accounts WHERE patient_id = ? ORDER BY paired_at DESC, created_at DESC",
    ),
    pairAccount: db.prepare(
      "UPDATE app_accounts SET patient_id = ?, paired_at = ?, pairing_id = ?, device_name = COALESCE(?, device_name) WHERE id = ? AND status = 'active' AND patient_id IS NULL",
    ),
    revokeAccount: db.prepare(
      "UPDATE app_accounts SET status = 'revoked', revoked_at = ?, revoked_by = ? WHERE id = ? AND status = 'active'",
    ),
    touchAccount: db.prepare("UPDATE app_accounts SET last_seen_at = ? WHERE id = ?"),
    deleteAccount: db.prepare("DELETE FROM app_accounts WHERE id = ?"),

    insertPairing: db.prepare(
      `INSERT INTO app_pairings (id, patient_id, code_hash, created_by, created_at, expires_at)
       VALUES (@id, @patient_id, @code_hash, @created_by, @created_at, @expires_at)`,
    ),
    pairing: db.prepare("SELECT * FROM app_pairings WHERE id = ?"),
    pairingByCode: db.prepare("SELECT * FROM app_pairings WHERE code_hash = ?"),
    completePairing: db.prepare(
      "UPDATE app_pairings SET completed_at = ?, account_id = ? WHERE id = ? AND completed_at IS NULL AND expires_at > ?",
    ),
    pendingPairings: db.prepare(
      "SELECT COUNT(*) AS n FROM app_pairings WHERE patient_id = ? AND completed_at IS NULL AND expires_at > ?",
    ),
    deletePairingsOfPatient: db.prepare("DELETE FROM app_pairings WHERE patient_id = ?"),
    deletePairingsOfAccount: db.prepare("DELETE FROM app_pairings WHERE account_id = ?"),

    insertJti: db.prepare(
      "INSERT OR IGNORE INTO app_request_jtis (account_id, jti, expires_at) VALUES (?, ?, ?)",
    ),
    purgeJtis: db.prepare("DELETE FROM app_request_jtis WHERE expires_at < ?"),
    deleteJtisOfAccount: db.prepare("DELETE FROM app_request_jtis WHERE account_id = ?"),

    syncItems: db.prepare("SELECT * FROM app_sync_items WHERE patient_id = ?"),
    upsertSyncItem: db.prepare(
      `INSERT INTO app_sync_items (patient_id, resource_key, holder, hash, first_synced_at, last_changed_at)
       VALUES (@patient_id, @resource_key, @holder, @hash, @now, @now)
       ON CONFLICT (patient_id, resource_key) DO UPDATE SET hash = excluded.hash, holder = excluded.holder, last_changed_at = excluded.last_changed_at`,
    ),
    deleteSyncItem: db.prepare("DELETE FROM app_sync_items WHERE patient_id = ? AND resource_key = ?"),
    deleteSyncItemsOfPatient: db.prepare("DELETE FROM app_sync_items WHERE patient_id = ?"),
    insertSyncRun: db.prepare(
      "INSERT INTO app_sync_runs (id, patient_id, at, actor, added, updated, unchanged, removed) VALUES (@id, @patient_id, @at, @actor, @added, @updated, @unchanged, @removed)",
    ),
    lastSyncRun: db.prepare("SELECT * FROM app_sync_runs WHERE patient_id = ? ORDER BY at DESC LIMIT 1"),
    deleteSyncRunsOfPatient: db.prepare("DELETE FROM app_sync_runs WHERE patient_id = ?"),
  };

  return {
    db,
    insertChallenge: (nonce: string, now: number, expiresAt: number) => {
      s.purgeChallenges.run(now - 60_000);
      s.insertChallenge.run(nonce, now, expiresAt);
    },
    consumeChallenge: (nonce: string, now: number) => s.consumeChallenge.run(now, nonce, now).changes === 1,
    challenge: (nonce: string) => s.challenge.get(nonce) as ChallengeRow | undefined,

    insertAccount: (
      a: Pick<AccountRow, "id" | "key_thumbprint" | "public_jwk" | "device_name" | "platform" | "created_at">,
    ) => s.insertAccount.run(a),
    account: (id: string) => s.account.get(id) as AccountRow | undefined,
    accountByThumbprint: (t: string) => s.accountByThumbprint.get(t) as AccountRow | undefined,
    accountsOfPatient: (patientId: string) => s.accountsOfPatient.all(patientId) as AccountRow[],
    pairAccount: (id: string, patientId: string, now: number, pairingId: string, deviceName: string | null) =>
      s.pairAccount.run(patientId, now, pairingId, deviceName, id).changes === 1,
    revokeAccount: (id: string, now: number, by: string) => s.revokeAccount.run(now, by, id).changes === 1,
    touchAccount: (id: string, now: number) => s.touchAccount.run(now, id),
    deleteAccount: (id: string) => s.deleteAccount.run(id).changes,

    insertPairing: (
      p: Pick<PairingRow, "id" | "patient_id" | "code_hash" | "created_by" | "created_at" | "expires_at">,
    ) => s.insertPairing.run(p),
    pairing: (id: string) => s.pairing.get(id) as PairingRow | undefined,
    pairingByCode: (hash: string) => s.pairingByCode.get(hash) as PairingRow | undefined,
    completePairing: (id: string, accountId: string, now: number) =>
      s.completePairing.run(now, accountId, id, now).changes === 1,
    pendingPairings: (patientId: string, now: number) =>
      (s.pendingPairings.get(patientId, now) as { n: number }).n,
    deletePairingsOfPatient: (patientId: string) => s.deletePairingsOfPatient.run(patientId).changes,
    deletePairingsOfAccount: (accountId: string) => s.deletePairingsOfAccount.run(accountId).changes,

    /** true the first time an (account, jti) pair is seen */
    rememberJti: (accountId: string, jti: string, expiresAt: number, now: number) => {
      s.purgeJtis.run(now);
      return s.insertJti.run(accountId, jti, expiresAt).changes === 1;
    },
    deleteJtisOfAccount: (accountId: string) => s.deleteJtisOfAccount.run(accountId).changes,

    syncItems: (patientId: string) => s.syncItems.all(patientId) as SyncItemRow[],
    upsertSyncItem: (i: {
      patient_id: string;
      resource_key: string;
      holder: string;
      hash: string;
      now: number;
    }) => s.upsertSyncItem.run(i),
    deleteSyncItem: (patientId: string, key: string) => s.deleteSyncItem.run(patientId, key),
    deleteSyncItemsOfPatient: (patientId: string) => s.deleteSyncItemsOfPatient.run(patientId).changes,
    insertSyncRun: (r: {
      id: string;
      patient_id: string;
      at: number;
      actor: string;
      added: number;
      updated: number;
      unchanged: number;
      removed: number;
    }) => s.insertSyncRun.run(r),
    lastSyncRun: (patientId: string) =>
      s.lastSyncRun.get(patientId) as { at: number; actor: string } | undefined,
    deleteSyncRunsOfPatient: (patientId: string) => s.deleteSyncRunsOfPatient.run(patientId).changes,
  };
}
export type PatientAppStore = ReturnType<typeof createPatientAppStore>;
