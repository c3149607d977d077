import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UPSTREAM_MAX_BYTES } from "../../server/http/limits";
import { startTestServer, type TestServer } from "../support/server";
import { startUpstreamDouble, type UpstreamDouble } from "../support/upstream-double";

/**
 * What an anonymous caller can make the hub ask of its OpenID provider, black-box: the hub's provider
 * is a real-HTTP double (discovery, token endpoint, signing keys) that counts every request and
 * answers as each case needs. The callback is rate limited, its state cookie is signed, a logout
 * token is taken once, and no answer of the provider is read past UPSTREAM_MAX_BYTES.
 */

const TIMEOUT_MS = 10_000;
const CALLBACK_LIMIT = 3;
const FAILED = "Sign-in failed. Please start again.";
const UNREACHABLE = "The identity provider is not reachable. Try again in a moment.";
/** four times the cap: a hub that reads it all is seen by the bytes the double wrote */
const HUGE = 4 * UPSTREAM_MAX_BYTES;

let idp: UpstreamDouble;
let hub: TestServer;
let signingKey: CryptoKey;
let publicJwk: object;

const discovery = (jwks = "/jwks") => ({
  issuer: idp.url,
  authorization_endpoint: `${idp.url}/authorize`,
  token_endpoint: `${idp.url}/token`,
  jwks_uri: `${idp.url}${jwks}`,
});

beforeAll(async () => {
  idp = await startUpstreamDouble();
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  signingKey = privateKey;
  publicJwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
  providerAnswers();
  hub = await startTestServer({
    OIDC_ISSUER: idp.url,
    OIDC_CLIENT_ID: "hub",
    OIDC_CLIENT_SECRET: "hub-secret",
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    RATE_LIMIT_CALLBACK: `${CALLBACK_LIMIT}/1m`,
  });
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await idp?.close();
});

/** the provider's usual answers (later rules of the double win) */
const providerAnswers = () =>
  idp
    .on("GET", "/.well-known/openid-configuration", { json: discovery() })
    .on("GET", "/jwks", { json: { keys: [publicJwk] } })
    .on("POST", "/token", { status: 400, json: { error: "invalid_grant" } });

const tokenRequests = () => idp.received("POST", "/token").length;

/** a browser request from `client` (X-Forwarded-For from the loopback, as a proxy sends it), timed */
async function get(client: string, path: string, cookie = "") {
  const t0 = performance.now();
  const res = await fetch(`${hub.url}${path}`, {
    redirect: "manual",
    headers: { "x-forwarded-for": client, cookie },
    signal: AbortSignal.timeout(TIMEOUT_MS + 5000),
  });
  const body = await res.text();
  return { res, body, ms: performance.now() - t0 };
}

/** a sign-in start: the state the provider is sent and the state cookie the hub set for it */
async function start(client: string): Promise<{ state: string; cookie: string }> {
  const { res } = await get(client, "/auth/login?returnTo=/");
  expect(res.status).toBe(302);
  const state = new URL(res.headers.get("location")!).searchParams.get("state")!;
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.startsWith("app-auth.oidc-state"))!;
  expect(state && cookie).toBeTruthy();
  return { state, cookie };
}

const errorOf = (res: Response) =>
  new URL(res.headers.get("location") ?? "", hub.url).searchParams.get("error");

describe("the sign-in callback", () => {
  it(`is rate limited per client: past ${CALLBACK_LIMIT} callbacks a 429 page, and no more token requests`, async () => {
    const { state, cookie } = await start("192.0.2.1");
    const before = tokenRequests();
    for (let i = 0; i < CALLBACK_LIMIT; i++) {
      const { res } = await get("192.0.2.1", `/auth/callback?state=${state}&code=c${i}`, cookie);
      expect(res.status).toBe(302);
      expect(errorOf(res)).toBe(FAILED);
    }
    expect(tokenRequests() - before).toBe(CALLBACK_LIMIT);
    const refused = await get("192.0.2.1", `/auth/callback?state=${state}&code=again`, cookie);
    expect(refused.res.status).toBe(429);
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body).toContain("Too many requests");
    expect(tokenRequests() - before).toBe(CALLBACK_LIMIT);
    // another client is not held up
    const other = await get("192.0.2.2", `/auth/callback?state=${state}&code=other`, cookie);
    expect(other.res.status).toBe(302);
  });

  it("refuses a forged or altered state cookie before any token request; the hub's own cookie is taken", async () => {
    const { state, cookie } = await start("192.0.2.3");
    const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
    const forged = `app-auth.oidc-state:${randomUUID()}=state=forged&forged=verifier`;
    const altered = `${name}=${value.replace(`${state}=`, `${state}=x`)}`;
    expect(altered).not.toBe(cookie);
    const before = tokenRequests();
    const a = await get("192.0.2.4", "/auth/callback?state=forged&code=c", forged);
    const b = await get("192.0.2.5", `/auth/callback?state=${state}&code=c`, altered);
    for (const { res } of [a, b]) {
      expect(res.status).toBe(302);
      expect(errorOf(res)).toBe(FAILED);
    }
    expect(tokenRequests() - before).toBe(0);
    // the cookie as the hub set it reaches the provider (which refuses the code)
    await get("192.0.2.6", `/auth/callback?state=${state}&code=c`, cookie);
    expect(tokenRequests() - before).toBe(1);
    expect(idp.received("POST", "/token").at(-1)!.rawBody).toContain("code_verifier=");
  });
});

/** a logout token signed by the provider's key */
const logoutToken = (jti: string) =>
  new SignJWT({ events: { "http://schemas.openid.net/event/backchannel-logout": {} }, jti })
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(idp.url)
    .setAudience("hub")
    .setSubject("nobody-signed-in")
    .setIssuedAt()
    .setExpirationTime("2m")
    .sign(signingKey);

const postLogout = (token: string) =>
  fetch(`${hub.url}/auth/backchannel-logout`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ logout_token: token }).toString(),
    signal: AbortSignal.timeout(TIMEOUT_MS + 5000),
  });

describe("back-channel logout", () => {
  it("takes a logout token once: the same token again is 400 (Back-Channel Logout 1.0, 2.6)", async () => {
    const token = await logoutToken(randomUUID());
    const first = await postLogout(token);
    expect(first.status).toBe(200);
    const again = await postLogout(token);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error: "invalid_request",
      error_description: "logout_token was already used",
    });
    // another token (another jti) is taken
    expect((await postLogout(await logoutToken(randomUUID()))).status).toBe(200);
  });
});

describe("an answer of the provider larger than UPSTREAM_MAX_BYTES", () => {
  /** an answer of HUGE bytes; `sent.bytes` counts what the double wrote before the hub stopped reading */
  const huge = () => ({ json: {}, bytes: HUGE, sent: { bytes: 0 } });
  afterEach(providerAnswers);

  it("discovery: the sign-in start answers the sign-in page with its message, the answer read no further", async () => {
    const answer = huge();
    idp.on("GET", "/.well-known/openid-configuration", { huge: answer });
    const { res, ms } = await get("192.0.2.10", "/auth/login?returnTo=/");
    expect(errorOf(res)).toBe(UNREACHABLE);
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(answer.sent.bytes).toBeLessThan(2 * UPSTREAM_MAX_BYTES);
  }, 30_000);

  it("token endpoint: the callback answers the sign-in page with its message, the answer read no further", async () => {
    const { state, cookie } = await start("192.0.2.11");
    const answer = huge();
    idp.on("POST", "/token", { huge: answer });
    const { res, ms } = await get("192.0.2.11", `/auth/callback?state=${state}&code=c`, cookie);
    expect(errorOf(res)).toBe(UNREACHABLE);
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(answer.sent.bytes).toBeLessThan(2 * UPSTREAM_MAX_BYTES);
  }, 30_000);

  it("signing keys: a logout token is answered 502, the key set read no further", async () => {
    // a discovery document naming another key set, taken up at the next sign-in start
    idp.on("GET", "/.well-known/openid-configuration", { json: discovery("/jwks-huge") });
    const answer = huge();
    idp.on("GET", "/jwks-huge", { huge: answer });
    await start("192.0.2.12");
    const t0 = performance.now();
    const res = await postLogout(await logoutToken(randomUUID()));
    expect(res.status).toBe(502);
    expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS);
    expect(answer.sent.bytes).toBeLessThan(2 * UPSTREAM_MAX_BYTES);
  }, 30_000);
});
