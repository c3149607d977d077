import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { migrate, type Db } from "../storage/database";
import { publicOnly } from "./sd-jwt";

/**
 * ES256 key pairs of the embedded parties (the development PID issuer and the development wallet's
 * holder key), generated once and kept in DATA_DIR's database so credentials survive a restart.
 */
export interface StoredKeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export function createKeyStore(db: Db) {
  migrate(db, "eudi-keys-1", [
    `CREATE TABLE eudi_keys (
      name TEXT PRIMARY KEY,
      private_jwk TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
  ]);
  const select = db.prepare("SELECT private_jwk FROM eudi_keys WHERE name = ?");
  const insert = db.prepare(
    "INSERT OR IGNORE INTO eudi_keys (name, private_jwk, created_at) VALUES (?, ?, ?)",
  );
  const cache = new Map<string, Promise<StoredKeyPair>>();

  async function load(name: string): Promise<StoredKeyPair> {
    let row = select.get(name) as { private_jwk: string } | undefined;
    if (!row) {
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      insert.run(name, JSON.stringify(await exportJWK(privateKey)), new Date().toISOString());
      row = select.get(name) as { private_jwk: string };
    }
    const jwk = JSON.parse(row.private_jwk) as JWK;
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
    get(name: string): Promise<StoredKeyPair> {
      let p = cache.get(name);
      if (!p) {
        p = load(name);
        cache.set(name, p);
        p.catch(() => cache.delete(name));
      }
      return p;
    },
  };
}
export type KeyStore = ReturnType<typeof createKeyStore>;
