import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, expect } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { CookieJar } from "../support/signin";

/** Helpers and the harness shared by the test files split from eudi.test.ts. */

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

/**
 * The per-file state of the split wallet sign-in tests: the real server (started and stopped by the
 * harness's own beforeAll/afterAll) and `start`, which begins a wallet sign-in on it (or on another
 * base URL) the way a browser does and reads the request object the wallet would fetch.
 */
export function eudiHarness() {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => server?.close());

  async function start(base = server.url, returnTo = "/devices"): Promise<Started> {
    const jar = new CookieJar();
    const res = await fetch(`${base}/api/auth/eudi/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ returnTo }),
    });
    expect(res.status).toBe(201);
    jar.store(res);
    const body = (await res.json()) as Json;
    const link = new URL(body.walletLink);
    let request: Json = {};
    const requestUri = link.searchParams.get("request_uri");
    if (requestUri && requestUri.startsWith(base)) {
      const r = await fetch(requestUri);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/oauth-authz-req+jwt");
      const [h, p, sig] = (await r.text()).split(".");
      expect(JSON.parse(Buffer.from(h, "base64url").toString())).toEqual({
        alg: "none",
        typ: "oauth-authz-req+jwt",
      });
      expect(sig).toBe("");
      request = JSON.parse(Buffer.from(p, "base64url").toString());
    }
    const status = async () => {
      const r = await fetch(`${base}/api/auth/eudi/status?sid=${encodeURIComponent(body.sid)}`, {
        headers: { cookie: jar.header() },
      });
      jar.store(r);
      return { res: r, body: (await r.json()) as Json };
    };
    return { jar, body, request, status };
  }

  return {
    get server() {
      return server;
    },
    start,
  };
}
