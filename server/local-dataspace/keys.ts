import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import type { LocalStore } from "./store";

/**
 * Ed25519 signing keys of the local dataspace (token issuer, data plane, credential issuer),
 * generated once and kept in its store so that tokens and credentials stay verifiable across
 * restarts.
 */
export interface SigningKey {
  kid: string;
  alg: "EdDSA";
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function loadOrCreateKey(store: LocalStore, name: string): Promise<SigningKey> {
  const saved = store.setting(`key:${name}`);
  let privateJwk: JWK;
  if (saved) {
    privateJwk = JSON.parse(saved) as JWK;
  } else {
    const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    privateJwk = { ...(await exportJWK(pair.privateKey)), kid: `${name}-key-1`, alg: "EdDSA" };
    store.setSetting(`key:${name}`, JSON.stringify(privateJwk));
  }
  const { d: _d, ...publicJwk } = privateJwk;
  return {
    kid: privateJwk.kid ?? `${name}-key-1`,
    alg: "EdDSA",
    privateKey: (await importJWK(privateJwk, "EdDSA")) as CryptoKey,
    publicKey: (await importJWK(publicJwk, "EdDSA")) as CryptoKey,
    publicJwk,
  };
}
