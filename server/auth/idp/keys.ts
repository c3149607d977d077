import { randomBytes } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import type { Relational } from "../../storage/relational";
import { getOrCreateSecret, readOrKeep } from "../../storage/secrets";
import { ensureIdpSchema, IDP_SECRETS } from "./schema";

/**
 * A value the embedded provider generates once and keeps in `idp_secrets`, so that ID tokens and
 * cookies stay valid across restarts and are the same on every instance: read, else made and kept
 * (insert-or-ignore then read back: when two processes start at once, both end up with the first
 * value written).
 */
async function keptOnce(rel: Relational, name: string, create: () => Promise<string>): Promise<string> {
  await ensureIdpSchema(rel);
  return readOrKeep(rel.db, name, create, IDP_SECRETS);
}

/**
 * The client secret of the app's client at the embedded provider: generated once and kept in the
 * secrets table as `idp-client-secret`; the app (server/services.ts) and the provider get this value.
 */
export const idpClientSecret = (rel: Relational) => getOrCreateSecret(rel, "idp-client-secret");

/** Keys that sign the provider's cookies (Koa keygrip). */
export async function cookieKeys(rel: Relational): Promise<string[]> {
  return [await keptOnce(rel, "cookie-key", async () => randomBytes(32).toString("base64url"))];
}

/** The RS256 private signing key (JWK with `kid`, `alg`, `use`), generated on first use. */
export async function signingKey(rel: Relational): Promise<JWK> {
  const kept = await keptOnce(rel, "signing-jwk", async () => {
    const { privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
    const jwk = await exportJWK(privateKey);
    return JSON.stringify({ ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "RS256", use: "sig" });
  });
  return JSON.parse(kept) as JWK;
}
