import type { Adapter, AdapterConstructor, AdapterPayload } from "oidc-provider";
import type { Db } from "../../storage/database";
import { ensureIdpSchema } from "./schema";

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Row {
  payload: string;
  consumed_at: number | null;
}

function toPayload(row: Row | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
}

/**
 * oidc-provider's storage port on SQLite: every model (Session, Grant, AuthorizationCode,
 * AccessToken, Interaction, ...) in the one table `idp_payloads`. Expired rows are never returned
 * and are swept by `sweepExpired`.
 */
export function sqliteAdapter(db: Db): AdapterConstructor {
  ensureIdpSchema(db);
  const live = "(expires_at IS NULL OR expires_at > ?)";
  const statements = {
    upsert: db.prepare(
      `INSERT INTO idp_payloads (model, id, payload, grant_id, user_code, uid, expires_at, consumed_at)
       VALUES (@model, @id, @payload, @grantId, @userCode, @uid, @expiresAt, NULL)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
         user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at,
         consumed_at = NULL`,
    ),
    find: db.prepare(`SELECT payload, consumed_at FROM idp_payloads WHERE model = ? AND id = ? AND ${live}`),
    findByUid: db.prepare(
      `SELECT payload, consumed_at FROM idp_payloads WHERE model = ? AND uid = ? AND ${live}`,
    ),
    findByUserCode: db.prepare(
      `SELECT payload, consumed_at FROM idp_payloads WHERE model = ? AND user_code = ? AND ${live}`,
    ),
    consume: db.prepare("UPDATE idp_payloads SET consumed_at = ? WHERE model = ? AND id = ?"),
    destroy: db.prepare("DELETE FROM idp_payloads WHERE model = ? AND id = ?"),
    revokeByGrantId: db.prepare("DELETE FROM idp_payloads WHERE model = ? AND grant_id = ?"),
  };

  return class SqliteAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      statements.upsert.run({
        model: this.model,
        id,
        payload: JSON.stringify(payload),
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresAt: typeof expiresIn === "number" ? nowSeconds() + expiresIn : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return toPayload(statements.find.get(this.model, id, nowSeconds()) as Row | undefined);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return toPayload(statements.findByUid.get(this.model, uid, nowSeconds()) as Row | undefined);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return toPayload(statements.findByUserCode.get(this.model, userCode, nowSeconds()) as Row | undefined);
    }

    async consume(id: string): Promise<void> {
      statements.consume.run(nowSeconds(), this.model, id);
    }

    async destroy(id: string): Promise<void> {
      statements.destroy.run(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      statements.revokeByGrantId.run(this.model, grantId);
    }
  };
}

/** Deletes expired provider artefacts; returns how many rows went. */
export function sweepExpired(db: Db): number {
  ensureIdpSchema(db);
  return db
    .prepare("DELETE FROM idp_payloads WHERE expires_at IS NOT NULL AND expires_at <= ?")
    .run(nowSeconds()).changes;
}
