import type { AuditLog } from "../audit/log";
import { migrate, type Db } from "../storage/database";
import type { ConnectorSyncState, ListedPolicy, OdrlPolicyDocument } from "./policy-document";

/**
 * The hub's policy registry (SQLite table policy_registry): who wrote which version of a policy,
 * when, and whether the connector holds it; withdrawn policies keep their row with `deleted_at`.
 */

export interface RegistryRow {
  participant_id: string;
  policy_id: string;
  document: string;
  version: number;
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
  connector_state: "in-sync" | "hub-newer";
  connector_detail: string | null;
  deleted_at: string | null;
}

export const EMBEDDED_NOTE =
  "the embedded development connector cannot update or delete policy definitions; the hub's registry holds this change";

export function createPolicyRegistry(db: Db, audit: AuditLog) {
  migrate(db, "policies-1", [
    `CREATE TABLE policy_registry (
      participant_id TEXT NOT NULL,
      policy_id TEXT NOT NULL,
      document TEXT NOT NULL,
      version INTEGER NOT NULL,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_by TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      connector_state TEXT NOT NULL,
      connector_detail TEXT,
      deleted_at TEXT,
      PRIMARY KEY (participant_id, policy_id)
    )`,
  ]);
  const getRow = db.prepare("SELECT * FROM policy_registry WHERE participant_id = ? AND policy_id = ?");
  const rowsOf = db.prepare("SELECT * FROM policy_registry WHERE participant_id = ?");
  const rowsById = db.prepare("SELECT * FROM policy_registry WHERE policy_id = ? AND deleted_at IS NULL");
  const insertRow = db.prepare(
    `INSERT INTO policy_registry (participant_id, policy_id, document, version, created_by, created_at, updated_by, updated_at, connector_state, connector_detail, deleted_at)
     VALUES (@participant_id, @policy_id, @document, @version, @created_by, @created_at, @updated_by, @updated_at, @connector_state, @connector_detail, NULL)
     ON CONFLICT(participant_id, policy_id) DO UPDATE SET document = excluded.document, version = excluded.version,
       created_by = excluded.created_by, created_at = excluded.created_at, updated_by = excluded.updated_by,
       updated_at = excluded.updated_at, connector_state = excluded.connector_state, connector_detail = excluded.connector_detail, deleted_at = NULL`,
  );
  const updateRow = db.prepare(
    `UPDATE policy_registry SET document = @document, version = @version, updated_by = @updated_by, updated_at = @updated_at,
       connector_state = @connector_state, connector_detail = @connector_detail WHERE participant_id = @participant_id AND policy_id = @policy_id`,
  );
  const insertWithdrawn = db.prepare(
    `INSERT INTO policy_registry (participant_id, policy_id, document, version, created_by, created_at, updated_by, updated_at, connector_state, connector_detail, deleted_at)
     VALUES (?, ?, '{}', 0, 'connector', ?, ?, ?, 'in-sync', NULL, ?)
     ON CONFLICT(participant_id, policy_id) DO UPDATE SET deleted_at = excluded.deleted_at, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
  );
  const deleteRow = db.prepare(
    "UPDATE policy_registry SET deleted_at = ?, updated_by = ?, updated_at = ? WHERE participant_id = ? AND policy_id = ?",
  );

  const record = (action: string, actor: string, target: string, outcome = "success") =>
    audit.appendSync({ action, actor, target, outcome, kind: "policy" });

  function listed(row: RegistryRow, atConnector: boolean): ListedPolicy {
    const doc = JSON.parse(row.document) as OdrlPolicyDocument;
    const state: ConnectorSyncState = !atConnector ? "missing-at-connector" : row.connector_state;
    return {
      ...doc,
      participantId: row.participant_id,
      source: "hub",
      version: row.version,
      createdBy: row.created_by,
      updatedBy: row.updated_by,
      updatedAt: row.updated_at,
      connector: {
        state,
        detail:
          state === "missing-at-connector"
            ? "the connector no longer lists this policy definition"
            : state === "hub-newer"
              ? (row.connector_detail ?? EMBEDDED_NOTE)
              : null,
      },
    };
  }

  return {
    getRow,
    rowsOf,
    rowsById,
    insertRow,
    updateRow,
    insertWithdrawn,
    deleteRow,
    record,
    listed,
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
  };
}

export type PolicyRegistry = ReturnType<typeof createPolicyRegistry>;
