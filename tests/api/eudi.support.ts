import { exportJWK, generateKeyPair, type JWK } from "jose";
import { type CookieJar } from "../support/signin";

/** Helpers shared by the test files split from eudi.test.ts. */

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Started {
  jar: CookieJar;
  body: Json;
  request: Json;
  status: () => Promise<{ res: Response; body: Json }>;
}

export async function holderKeys() {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, publicJwk: (await exportJWK(publicKey)) as JWK };
}
