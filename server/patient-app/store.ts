import { sql } from "kysely";
import { columnsOf, withTimes, type Relational, type Sql } from "../storage/relational";

/**
 * The companion app's tables in the relational store (server/storage/relational): attestation
 * challenges, app accounts (each bound to one device key), pairings, seen request-token ids (replay
 * protection) and the EHR sync ledger. Every method takes an optional query handle: pass the
 * transaction of a write that must commit together with its audit entry.
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

export type SyncTotals = Record<"added" | "updated" | "unchanged" | "removed", number>;

export interface SyncItemRow {
  patient_id: string;
  resource_key: string;
  holder: string;
  hash: string;
  first_synced_at: number;
  last_changed_at: number;
}

/**
 * Change-feed topics of the app's tables, for answers kept per version of them (server/http/kept): every write
 * here bumps its table's topic, once per transaction, in that transaction (a write outside one: right
 * after it). SYNC_TOPIC: the EHR sync ledger and its runs (the record's `meta`); DEVICES_TOPIC: app
 * accounts and pairings (a pairing's state and device).
 */
export const SYNC_TOPIC = "patient-app-sync";
export const DEVICES_TOPIC = "patient-app-devices";
type Topic = typeof SYNC_TOPIC | typeof DEVICES_TOPIC;

/** the columns an insert writes, however wide the caller's object */
const NEW_ACCOUNT = ["id", "key_thumbprint", "public_jwk", "device_name", "platform", "created_at"] as const;
const NEW_PAIRING = ["id", "patient_id", "code_hash", "created_by", "created_at", "expires_at"] as const;
const SYNC_RUN = ["id", "patient_id", "at", "actor", "added", "updated", "unchanged", "removed"] as const;

/** millisecond times are beyond 32 bits: bigint (read back as numbers on both stores) */
const MS = "bigint";

const affected = (r: {
  numUpdatedRows?: bigint;
  numDeletedRows?: bigint;
  numInsertedOrUpdatedRows?: bigint;
}) => Number(r.numUpdatedRows ?? r.numDeletedRows ?? r.numInsertedOrUpdatedRows ?? 0);

export async function createPatientAppStore(rel: Relational) {
  await rel.migrate("patient-app-1", async (m) => {
    await m.schema
      .createTable("app_challenges")
      .addColumn("nonce", "text", (c) => c.primaryKey())
      .addColumn("created_at", MS, (c) => c.notNull())
      .addColumn("expires_at", MS, (c) => c.notNull())
      .addColumn("used_at", MS)
      .execute();
    await m.schema.createIndex("app_challenges_expires").on("app_challenges").column("expires_at").execute();
    await m.schema
      .createTable("app_accounts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("key_thumbprint", "text", (c) => c.notNull().unique())
      .addColumn("public_jwk", "text", (c) => c.notNull())
      .addColumn("device_name", "text")
      .addColumn("platform", "text")
      .addColumn("status", "text", (c) => c.notNull().defaultTo("active"))
      .addColumn("created_at", MS, (c) => c.notNull())
      .addColumn("patient_id", "text")
      .addColumn("paired_at", MS)
      .addColumn("pairing_id", "text")
      .addColumn("revoked_at", MS)
      .addColumn("revoked_by", "text")
      .addColumn("last_seen_at", MS)
      .execute();
    await m.schema.createIndex("app_accounts_patient").on("app_accounts").column("patient_id").execute();
    await m.schema
      .createTable("app_pairings")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("patient_id", "text", (c) => c.notNull())
      .addColumn("code_hash", "text", (c) => c.notNull().unique())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", MS, (c) => c.notNull())
      .addColumn("expires_at", MS, (c) => c.notNull())
      .addColumn("completed_at", MS)
      .addColumn("account_id", "text")
      .execute();
    await m.schema.createIndex("app_pairings_patient").on("app_pairings").column("patient_id").execute();
    await m.schema
      .createTable("app_request_jtis")
      .addColumn("account_id", "text", (c) => c.notNull())
      .addColumn("jti", "text", (c) => c.notNull())
      .addColumn("expires_at", MS, (c) => c.notNull())
      .addPrimaryKeyConstraint("app_request_jtis_pk", ["account_id", "jti"])
      .execute();
    await m.schema
      .createIndex("app_request_jtis_expires")
      .on("app_request_jtis")
      .column("expires_at")
      .execute();
    await m.schema
      .createTable("app_sync_items")
      .addColumn("patient_id", "text", (c) => c.notNull())
      .addColumn("resource_key", "text", (c) => c.notNull())
      .addColumn("holder", "text", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull())
      .addColumn("first_synced_at", MS, (c) => c.notNull())
      .addColumn("last_changed_at", MS, (c) => c.notNull())
      .addPrimaryKeyConstraint("app_sync_items_pk", ["patient_id", "resource_key"])
      .execute();
    await m.schema
      .createTable("app_sync_runs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("patient_id", "text", (c) => c.notNull())
      .addColumn("at", MS, (c) => c.notNull())
      .addColumn("actor", "text", (c) => c.notNull())
      .addColumn("added", "integer", (c) => c.notNull())
      .addColumn("updated", "integer", (c) => c.notNull())
      .addColumn("unchanged", "integer", (c) => c.notNull())
      .addColumn("removed", "integer", (c) => c.notNull())
      .execute();
    await m.schema
      .createIndex("app_sync_runs_patient")
      .on("app_sync_runs")
      .columns(["patient_id", "at"])
      .execute();
  });

  const db = rel.db;
  // the transactions that bumped each topic already (one bump per transaction, however many rows)
  const bumped = new Map([SYNC_TOPIC, DEVICES_TOPIC].map((t) => [t, new WeakSet<Sql>()]));
  async function changed(q: Sql, topic: Topic) {
    const seen = bumped.get(topic)!;
    if (q !== db) {
      if (seen.has(q)) return;
      seen.add(q);
    }
    await rel.changes.bump(q, topic);
  }
  const rowsWhere = async <T extends object>(q: Sql, table: string, column: string, value: string) =>
    ((await q.selectFrom(table).selectAll().where(column, "=", value).execute()) as T[]).map(withTimes);
  const one = async <T extends object>(q: Sql, table: string, column: string, value: string) =>
    (await rowsWhere<T>(q, table, column, value)).at(0);
  /** deletes the rows of `table` whose `column` is `value` (bumping `topic` when given): how many */
  async function deleteWhere(q: Sql, table: string, column: string, value: string, topic?: Topic) {
    const n = affected(await q.deleteFrom(table).where(column, "=", value).executeTakeFirst());
    if (topic) await changed(q, topic);
    return n;
  }
  /** inserts the named `columns` of `row` into `table` and bumps `topic` */
  async function insert<R>(q: Sql, table: string, columns: readonly (keyof R)[], row: R, topic: Topic) {
    await q.insertInto(table).values(columnsOf(row, columns)).execute();
    await changed(q, topic);
  }

  return {
    rel,
    async insertChallenge(nonce: string, now: number, expiresAt: number, q: Sql = db) {
      await q
        .deleteFrom("app_challenges")
        .where("expires_at", "<", now - 60_000)
        .execute();
      await q
        .insertInto("app_challenges")
        .values({ nonce, created_at: now, expires_at: expiresAt })
        .execute();
    },
    async consumeChallenge(nonce: string, now: number, q: Sql = db) {
      const r = await q
        .updateTable("app_challenges")
        .set({ used_at: now })
        .where("nonce", "=", nonce)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return affected(r) === 1;
    },
    challenge: (nonce: string, q: Sql = db) => one<ChallengeRow>(q, "app_challenges", "nonce", nonce),

    insertAccount: (a: Pick<AccountRow, (typeof NEW_ACCOUNT)[number]>, q: Sql = db) =>
      insert(q, "app_accounts", NEW_ACCOUNT, a, DEVICES_TOPIC),
    account: (id: string, q: Sql = db) => one<AccountRow>(q, "app_accounts", "id", id),
    accountByThumbprint: (t: string, q: Sql = db) => one<AccountRow>(q, "app_accounts", "key_thumbprint", t),
    async accountsOfPatient(patientId: string, q: Sql = db) {
      const rows = (await q
        .selectFrom("app_accounts")
        .selectAll()
        .where("patient_id", "=", patientId)
        // SQLite sorts NULL first ascending (last descending); PostgreSQL the other way: say it
        .orderBy(sql`paired_at IS NULL`)
        .orderBy("paired_at", "desc")
        .orderBy("created_at", "desc")
        .execute()) as AccountRow[];
      return rows.map(withTimes);
    },
    async pairAccount(
      id: string,
      patientId: string,
      now: number,
      pairingId: string,
      deviceName: string | null,
      q: Sql = db,
    ) {
      const r = await q
        .updateTable("app_accounts")
        .set({
          patient_id: patientId,
          paired_at: now,
          pairing_id: pairingId,
          device_name: sql`COALESCE(${deviceName}, device_name)`,
        })
        .where("id", "=", id)
        .where("status", "=", "active")
        .where("patient_id", "is", null)
        .executeTakeFirst();
      await changed(q, DEVICES_TOPIC);
      return affected(r) === 1;
    },
    async revokeAccount(id: string, now: number, by: string, q: Sql = db) {
      const r = await q
        .updateTable("app_accounts")
        .set({ status: "revoked", revoked_at: now, revoked_by: by })
        .where("id", "=", id)
        .where("status", "=", "active")
        .executeTakeFirst();
      await changed(q, DEVICES_TOPIC);
      return affected(r) === 1;
    },
    async touchAccount(id: string, now: number, q: Sql = db) {
      await q.updateTable("app_accounts").set({ last_seen_at: now }).where("id", "=", id).execute();
      await changed(q, DEVICES_TOPIC);
    },
    deleteAccount: (id: string, q: Sql = db) => deleteWhere(q, "app_accounts", "id", id, DEVICES_TOPIC),

    insertPairing: (p: Pick<PairingRow, (typeof NEW_PAIRING)[number]>, q: Sql = db) =>
      insert(q, "app_pairings", NEW_PAIRING, p, DEVICES_TOPIC),
    pairing: (id: string, q: Sql = db) => one<PairingRow>(q, "app_pairings", "id", id),
    pairingByCode: (hash: string, q: Sql = db) => one<PairingRow>(q, "app_pairings", "code_hash", hash),
    async completePairing(id: string, accountId: string, now: number, q: Sql = db) {
      const r = await q
        .updateTable("app_pairings")
        .set({ completed_at: now, account_id: accountId })
        .where("id", "=", id)
        .where("completed_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      await changed(q, DEVICES_TOPIC);
      return affected(r) === 1;
    },
    async pendingPairings(patientId: string, now: number, q: Sql = db) {
      const r = (await q
        .selectFrom("app_pairings")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("patient_id", "=", patientId)
        .where("completed_at", "is", null)
        .where("expires_at", ">", now)
        .executeTakeFirstOrThrow()) as { n: number };
      return Number(r.n);
    },
    deletePairingsOfPatient: (patientId: string, q: Sql = db) =>
      deleteWhere(q, "app_pairings", "patient_id", patientId, DEVICES_TOPIC),
    deletePairingsOfAccount: (accountId: string, q: Sql = db) =>
      deleteWhere(q, "app_pairings", "account_id", accountId, DEVICES_TOPIC),

    /** true the first time an (account, jti) pair is seen */
    async rememberJti(accountId: string, jti: string, expiresAt: number, now: number, q: Sql = db) {
      await q.deleteFrom("app_request_jtis").where("expires_at", "<", now).execute();
      const r = await q
        .insertInto("app_request_jtis")
        .values({ account_id: accountId, jti, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(["account_id", "jti"]).doNothing())
        .executeTakeFirst();
      return affected(r) === 1;
    },
    deleteJtisOfAccount: (accountId: string, q: Sql = db) =>
      deleteWhere(q, "app_request_jtis", "account_id", accountId),

    syncItems: (patientId: string, q: Sql = db) =>
      rowsWhere<SyncItemRow>(q, "app_sync_items", "patient_id", patientId),
    async upsertSyncItem(
      i: { patient_id: string; resource_key: string; holder: string; hash: string; now: number },
      q: Sql = db,
    ) {
      const { patient_id, resource_key, holder, hash, now } = i;
      await q
        .insertInto("app_sync_items")
        .values({ patient_id, resource_key, holder, hash, first_synced_at: now, last_changed_at: now })
        .onConflict((oc) =>
          oc.columns(["patient_id", "resource_key"]).doUpdateSet((eb) => ({
            hash: eb.ref("excluded.hash"),
            holder: eb.ref("excluded.holder"),
            last_changed_at: eb.ref("excluded.last_changed_at"),
          })),
        )
        .execute();
      await changed(q, SYNC_TOPIC);
    },
    async deleteSyncItem(patientId: string, key: string, q: Sql = db) {
      await q
        .deleteFrom("app_sync_items")
        .where("patient_id", "=", patientId)
        .where("resource_key", "=", key)
        .execute();
      await changed(q, SYNC_TOPIC);
    },
    deleteSyncItemsOfPatient: (patientId: string, q: Sql = db) =>
      deleteWhere(q, "app_sync_items", "patient_id", patientId, SYNC_TOPIC),
    /** a sync run: who, when, and how many resources were added, updated, unchanged and removed */
    insertSyncRun: (
      r: { id: string; patient_id: string; at: number; actor: string } & SyncTotals,
      q: Sql = db,
    ) => insert(q, "app_sync_runs", SYNC_RUN, r, SYNC_TOPIC),
    async lastSyncRun(patientId: string, q: Sql = db) {
      const r = (await q
        .selectFrom("app_sync_runs")
        .select(["at", "actor"])
        .where("patient_id", "=", patientId)
        .orderBy("at", "desc")
        .limit(1)
        .executeTakeFirst()) as { at: number; actor: string } | undefined;
      return r && { at: Number(r.at), actor: r.actor };
    },
    deleteSyncRunsOfPatient: (patientId: string, q: Sql = db) =>
      deleteWhere(q, "app_sync_runs", "patient_id", patientId, SYNC_TOPIC),
  };
}
export type PatientAppStore = Awaited<ReturnType<typeof createPatientAppStore>>;
