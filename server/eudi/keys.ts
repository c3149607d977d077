import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { createKept, EVERYONE } from "../http/kept";
import type { Relational } from "../storage/relational";
import { ensureKeptTable, readOrKeep } from "../storage/secrets";
import { publicOnly } from "./sd-jwt";

/**
 * ES256 key pairs of the embedded parties (the development PID issuer and the development wallet's
 * holder key), generated once and kept in the relational store so credentials survive a restart (and are the
 * same on every instance).
 */
export async function createKeyStore(rel: Relational) {
  const EUDI_KEYS = { table: "eudi_keys", column: "private_jwk" };
  await ensureKeptTable(rel, "eudi-keys-1", EUDI_KEYS);
  const kept = createKept<Awaited<ReturnType<typeof load>>>({ max: 100 });

  async function load(name: string) {
    // when two instances generate a key at once, both keep the first one written
    const stored = await readOrKeep(
      rel.db,
      name,
      async () =>
        JSON.stringify(await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey)),
      EUDI_KEYS,
    );
    const jwk = JSON.parse(stored) as JWK;
    const publicJwk = publicOnly(jwk);
    const kid = await calculateJwkThumbprint(publicJwk);
    return {
      kid,
      privateKey: (await importJWK({ ...jwk, alg: "ES256" }, "ES256")) as CryptoKey,
      publicKey: (await importJWK({ ...publicJwk, alg: "ES256" }, "ES256")) as CryptoKey,
      publicJwk: { ...publicJwk, kid, alg: "ES256", use: "sig" },
    };
  }

  return {
    get: (name: string) => kept({ caller: EVERYONE, versions: [], args: [name] }, () => load(name)),
  };
}
export type KeyStore = Awaited<ReturnType<typeof createKeyStore>>;
