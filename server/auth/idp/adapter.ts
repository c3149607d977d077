import type { Adapter, AdapterConstructor, AdapterPayload } from "oidc-provider";
import type { Relational, Sql } from "../../storage/relational";
import { ensureIdpSchema } from "./schema";

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Row {
  payload: string;
  consumed_at: number | null;
}

function toPayload(row: Row | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: Number(row.consumed_at) };
}

/**
 * oidc-provider's storage port on the relational store: every model (Session, Grant,
 * AuthorizationCode, AccessToken, Interaction, ...) in the one table `idp_payloads`, so a user
 * signed in through one instance is known to every instance sharing the store. Expired rows are
 * never returned and are swept by `sweepExpired`.
 */
export async function relationalAdapter(rel: Relational): Promise<AdapterConstructor> {
  await ensureIdpSchema(rel);
  const db: Sql = rel.db;

  const findWhere = (model: string, column: "id" | "uid" | "user_code", value: string) =>
    db
      .selectFrom("idp_payloads")
      .select(["payload", "consumed_at"])
      .where("model", "=", model)
      .where(column, "=", value)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", nowSeconds())]))
      .executeTakeFirst() as Promise<Row | undefined>;

  return class RelationalAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const values = {
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expires_at: typeof expiresIn === "number" ? nowSeconds() + expiresIn : null,
        consumed_at: null,
      };
      await db
        .insertInto("idp_payloads")
        .values({ model: this.model, id, ...values })
        .onConflict((oc) => oc.columns(["model", "id"]).doUpdateSet(values))
        .execute();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return toPayload(await findWhere(this.model, "id", id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return toPayload(await findWhere(this.model, "uid", uid));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return toPayload(await findWhere(this.model, "user_code", userCode));
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable("idp_payloads")
        .set({ consumed_at: nowSeconds() })
        .where("model", "=", this.model)
        .where("id", "=", id)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom("idp_payloads").where("model", "=", this.model).where("id", "=", id).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db
        .deleteFrom("idp_payloads")
        .where("model", "=", this.model)
        .where("grant_id", "=", grantId)
        .execute();
    }
  };
}

/** Deletes expired provider artefacts; returns how many rows went. */
export async function sweepExpired(rel: Relational): Promise<number> {
  await ensureIdpSchema(rel);
  const res = await rel.db
    .deleteFrom("idp_payloads")
    .where("expires_at", "is not", null)
    .where("expires_at", "<=", nowSeconds())
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
