import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { Relational } from "../storage/relational";
import { publicOnly } from "./sd-jwt";

/**
 * ES256 key pairs of the embedded parties (the development PID issuer and the development wallet's
 * holder key), generated once and kept in the relational store so credentials survive a restart (and are the
 * same on every instance).
 */
export interface StoredKeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function createKeyStore(rel: Relational) {
  await rel.migrate("eudi-keys-1", async (m) => {
    await m.schema
      .createTable("eudi_keys")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("private_jwk", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  });
  const select = async (name: string) =>
    (await rel.db
      .selectFrom("eudi_keys")
      .select("private_jwk")
      .where("name", "=", name)
      .executeTakeFirst()) as { private_jwk: string } | undefined;
  /** insert-or-ignore: when two instances generate a key at once, both keep the first one written */
  const insert = async (name: string, privateJwk: string) => {
    await rel.db
      .insertInto("eudi_keys")
      .values({ name, private_jwk: privateJwk, created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
  };
  const cache = new Map<string, Promise<StoredKeyPair>>();

  async function load(name: string): Promise<StoredKeyPair> {
    let row = await select(name);
    if (!row) {
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      await insert(name, JSON.stringify(await exportJWK(privateKey)));
      row = (await select(name))!;
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
export type KeyStore = Awaited<ReturnType<typeof createKeyStore>>;
