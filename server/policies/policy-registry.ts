import type { AuditLog } from "../audit/log";
import { topicWriter, type Relational, type Sql } from "../storage/relational";
import type { ConnectorSyncState, ListedPolicy, OdrlPolicyDocument } from "./policy-document";

/**
 * The hub's policy registry (table policy_registry in the relational store): who wrote which version of a policy,
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

const TABLE = "policy_registry";

/** the registry's change-feed topic: bumped in every write's transaction */
export const POLICY_REGISTRY_TOPIC = "policy-registry";

export async function createPolicyRegistry(rel: Relational, audit: AuditLog) {
  await rel.migrate("policies-1", async (m) => {
    await m.schema
      .createTable(TABLE)
      .addColumn("participant_id", "text", (c) => c.notNull())
      .addColumn("policy_id", "text", (c) => c.notNull())
      .addColumn("document", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_by", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("connector_state", "text", (c) => c.notNull())
      .addColumn("connector_detail", "text")
      .addColumn("deleted_at", "text")
      .addPrimaryKeyConstraint("policy_registry_pk", ["participant_id", "policy_id"])
      .execute();
  });
  const db = rel.db;
  const writer = topicWriter(rel, POLICY_REGISTRY_TOPIC);
  const asRow = (r: RegistryRow): RegistryRow => ({ ...r, version: Number(r.version) });

  /** the rows whose columns have these values (null: is null) */
  async function rowsWhere(where: Record<string, string | null>, q: Sql) {
    let query = q.selectFrom(TABLE).selectAll();
    for (const [column, value] of Object.entries(where))
      query = value === null ? query.where(column, "is", null) : query.where(column, "=", value);
    return ((await query.execute()) as RegistryRow[]).map(asRow);
  }
  const getRow = async (participantId: string, policyId: string, q: Sql = db) =>
    (await rowsWhere({ participant_id: participantId, policy_id: policyId }, q)).at(0);
  const rowsOf = (participantId: string, q: Sql = db) => rowsWhere({ participant_id: participantId }, q);
  /** the live (not withdrawn) rows of a policy id, in every participant */
  const rowsById = (policyId: string, q: Sql = db) => rowsWhere({ policy_id: policyId, deleted_at: null }, q);
  /** the columns every write of a version sets (named: a caller's wider object adds nothing) */
  const versionOf = (row: RegistryRow) => ({
    document: row.document,
    version: row.version,
    updated_by: row.updated_by,
    updated_at: row.updated_at,
    connector_state: row.connector_state,
    connector_detail: row.connector_detail,
  });
  /** writes `row` as the live version (reviving a withdrawn policy) */
  async function insertRow(row: RegistryRow, q: Sql = db) {
    const live = {
      ...versionOf(row),
      created_by: row.created_by,
      created_at: row.created_at,
      deleted_at: null,
    };
    await q
      .insertInto(TABLE)
      .values({ participant_id: row.participant_id, policy_id: row.policy_id, ...live })
      .onConflict((oc) => oc.columns(["participant_id", "policy_id"]).doUpdateSet(live))
      .execute();
  }
  async function updateRow(row: RegistryRow, q: Sql = db) {
    await q
      .updateTable(TABLE)
      .set(versionOf(row))
      .where("participant_id", "=", row.participant_id)
      .where("policy_id", "=", row.policy_id)
      .execute();
  }

  async function deleteRow(participantId: string, policyId: string, at: string, actor: string, q: Sql = db) {
    await q
      .updateTable(TABLE)
      .set({ deleted_at: at, updated_by: actor, updated_at: at })
      .where("participant_id", "=", participantId)
      .where("policy_id", "=", policyId)
      .execute();
  }

  /** the audit entry of a policy change; pass the change's transaction so both commit together */
  const record = (action: string, actor: string, target: string, outcome = "success", tx?: Sql) =>
    audit.append({ action, actor, target, outcome, kind: "policy" }, { tx });

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
    deleteRow,
    record,
    listed,
    /**
     * One transaction: the registry's change and its audit entry commit together, and the registry's
     * change-feed topic moves with them (what the kept list keys by, service.ts).
     */
    transaction: writer.tx,
    /** changes with every write to the registry, here or (at once, on PostgreSQL too) on another instance */
    version: writer.fresh,
  };
}

export type PolicyRegistry = Awaited<ReturnType<typeof createPolicyRegistry>>;
