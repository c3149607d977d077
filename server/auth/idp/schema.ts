import { sql } from "kysely";
import type { Relational } from "../../storage/relational";
import { createKeptTable, type KeptValues } from "../../storage/secrets";

export const IDP_SECRETS: KeptValues = { table: "idp_secrets", column: "value" };

/**
 * Tables of the embedded identity provider, in the relational store (server/storage/relational):
 * - `idp_payloads`: the oidc-provider artefacts (sessions, grants, codes, tokens, interactions),
 *   one row per model and id, with their expiry in epoch seconds;
 * - `idp_secrets`: values generated once and kept (signing key, cookie key, client secret).
 * Every instance sharing the store serves the same provider state.
 */
export async function ensureIdpSchema(rel: Relational): Promise<void> {
  await rel.migrate("idp-1", async (m) => {
    await m.schema
      .createTable("idp_payloads")
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("id", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("grant_id", "text")
      .addColumn("user_code", "text")
      .addColumn("uid", "text")
      .addColumn("expires_at", "bigint")
      .addColumn("consumed_at", "bigint")
      .addPrimaryKeyConstraint("idp_payloads_pk", ["model", "id"])
      .execute();
    for (const column of ["grant_id", "uid", "user_code"] as const) {
      const name = column === "grant_id" ? "grant" : column;
      await m.schema
        .createIndex(`idp_payloads_${name}`)
        .on("idp_payloads")
        .columns(["model", column])
        .where(sql.ref(column), "is not", null)
        .execute();
    }
    await m.schema
      .createIndex("idp_payloads_expiry")
      .on("idp_payloads")
      .column("expires_at")
      .where(sql.ref("expires_at"), "is not", null)
      .execute();
    await createKeptTable(m, IDP_SECRETS);
  });
}
