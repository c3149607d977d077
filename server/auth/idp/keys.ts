import { randomBytes } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import type { Db } from "../../storage/database";
import { ensureIdpSchema } from "./schema";

/**
 * Values the embedded provider generates once and keeps in `idp_secrets`, so that ID tokens,
 * cookies and the client secret stay valid across restarts. Insert-or-ignore then read back:
 * when two processes start at once, both end up with the first value written.
 */
function keepOnce(db: Db, name: string, create: () => string): string {
  ensureIdpSchema(db);
  db.prepare("INSERT OR IGNORE INTO idp_secrets (name, value, created_at) VALUES (?, ?, ?)").run(
    name,
    create(),
    new Date().toISOString(),
  );
  const row = db.prepare("SELECT value FROM idp_secrets WHERE name = ?").get(name) as { value: string };
  return row.value;
}

function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** The client secret of the app's client at the embedded provider; the app uses the same value. */
export function idpClientSecret(db: Db): string {
  return keepOnce(db, "client-secret", randomSecret);
}

/** Keys that sign the provider's cookies (Koa keygrip). */
export function cookieKeys(db: Db): string[] {
  return [keepOnce(db, "cookie-key", randomSecret)];
}

/** The RS256 private signing key (JWK with `kid`, `alg`, `use`), generated on first use. */
export async function signingKey(db: Db): Promise<JWK> {
  ensureIdpSchema(db);
  const stored = db.prepare("SELECT value FROM idp_secrets WHERE name = 'signing-jwk'").get() as
    { value: string } | undefined;
  if (stored) return JSON.parse(stored.value) as JWK;

  const { privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const generated: JWK = { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "RS256", use: "sig" };
  return JSON.parse(keepOnce(db, "signing-jwk", () => JSON.stringify(generated))) as JWK;
}
