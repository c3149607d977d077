import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { loadConfig } from "../../config";
import { openDatabase, type Db } from "../../storage/database";
import type { Relational } from "../../storage/relational";
import { openSqliteRelational } from "../../storage/relational/sqlite";
import { createIdentityProvider, IDP_CLIENT_ID } from "./provider";
import {
  browse,
  CookieJar,
  follow,
  formBody,
  pkcePair,
  startIdp,
  type RunningIdp,
} from "../../../tests/support/idp";

let dataDir: string;
let db: Db;
let rel: Relational;
let idp: RunningIdp;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "idp-test-"));
  db = openDatabase(dataDir);
  rel = openSqliteRelational(db);
  idp = await startIdp(rel, dataDir);
});

afterAll(async () => {
  await idp?.stop();
  db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const redirectUri = () => `${idp.publicUrl}/auth/callback`;

interface AuthRequest {
  username?: string;
  nonce?: string;
  state?: string;
  prompt?: string;
  pkce?: boolean;
}

function authorizationUrl(challenge: string | undefined, request: AuthRequest): string {
  const params = new URLSearchParams({
    client_id: IDP_CLIENT_ID,
    redirect_uri: redirectUri(),
    response_type: "code",
    scope: "openid profile email",
    state: request.state ?? "state-1",
    nonce: request.nonce ?? "nonce-1",
  });
  if (challenge) {
    params.set("code_challenge", challenge);
    params.set("code_challenge_method", "S256");
  }
  if (request.username) params.set("login_hint", request.username);
  if (request.prompt) params.set("prompt", request.prompt);
  return `${idp.issuer}/auth?${params}`;
}

/** /idp/auth until the interaction page (or the redirect_uri when no interaction is needed). */
async function startAuthorization(jar: CookieJar, request: AuthRequest = {}) {
  const { verifier, challenge } = pkcePair();
  const { response, url } = await follow(
    jar,
    authorizationUrl(request.pkce === false ? undefined : challenge, request),
    redirectUri(),
  );
  return { response, url, verifier };
}

async function exchangeCode(code: string, verifier: string) {
  const response = await fetch(`${idp.issuer}/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${IDP_CLIENT_ID}:${idp.clientSecret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri(),
      code_verifier: verifier,
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id_token: string; access_token: string; token_type: string };
}

async function verifyIdToken(idToken: string, nonce: string) {
  const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as {
    jwks_uri: string;
  };
  const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
    issuer: idp.issuer,
    audience: IDP_CLIENT_ID,
  });
  expect(payload.nonce).toBe(nonce);
  return payload;
}

/** The whole sign-in of a persona through the sign-in form; returns the verified ID token. */
/** the sign-in form of `interactionUrl` answered with clinic's password, followed to the redirect URI */
const signInAsClinic = (jar: CookieJar, interactionUrl: string) =>
  follow(jar, interactionUrl, redirectUri(), formBody({ username: "clinic", password: "clinic" }));

async function signIn(jar: CookieJar, username: string, password = username) {
  const nonce = `nonce-${username}`;
  const start = await startAuthorization(jar, { username, nonce, state: `state-${username}` });
  expect(start.response.status).toBe(200);
  const login = await follow(jar, start.url, redirectUri(), formBody({ username, password }));
  const callback = new URL(login.url);
  expect(callback.origin + callback.pathname).toBe(redirectUri());
  expect(callback.searchParams.get("state")).toBe(`state-${username}`);
  const code = callback.searchParams.get("code");
  expect(code).toBeTruthy();
  const tokens = await exchangeCode(code!, start.verifier);
  return { tokens, claims: await verifyIdToken(tokens.id_token, nonce) };
}

describe("embedded identity provider", () => {
  it("publishes its endpoints under /idp", async () => {
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery.issuer).toBe(`${idp.publicUrl}/idp`);
    for (const endpoint of [
      "authorization_endpoint",
      "token_endpoint",
      "userinfo_endpoint",
      "jwks_uri",
      "end_session_endpoint",
    ]) {
      expect(String(discovery[endpoint])).toMatch(new RegExp(`^${idp.publicUrl}/idp/`));
    }
    expect(discovery.code_challenge_methods_supported).toEqual(["S256"]);
    expect(discovery.token_endpoint_auth_methods_supported).toEqual([
      "client_secret_basic",
      "client_secret_post",
    ]);
  });

  it("signs clinic in with authorization code + PKCE and puts the roles into the ID token", async () => {
    const jar = new CookieJar();
    const { tokens, claims } = await signIn(jar, "clinic");
    expect(claims.sub).toBe("clinic");
    expect(claims.preferred_username).toBe("clinic");
    expect(claims.name).toBe("Dr. Anna Weber");
    expect(claims.email).toBe("anna.weber@alpha-klinik.example");
    expect(claims.realm_access).toEqual({ roles: ["DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"] });
    expect(claims.organization).toBe("AlphaKlinik Berlin");
    expect(claims.participant_did).toBe("did:web:alpha-klinik.de:participant");
    expect(claims.patient_id).toBeUndefined();
    expect(jar.names().filter((n) => !n.startsWith("idp_"))).toEqual([]);

    const userinfo = await fetch(`${idp.issuer}/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({
      sub: "clinic",
      realm_access: { roles: ["DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"] },
    });
  });

  it("redeems an authorization code only once", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    const login = await signInAsClinic(jar, start.url);
    const code = new URL(login.url).searchParams.get("code") ?? "";
    await exchangeCode(code, start.verifier);
    const replay = await fetch(`${idp.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri(),
        code_verifier: start.verifier,
        client_id: IDP_CLIENT_ID,
        client_secret: idp.clientSecret,
      }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("grants prompt=consent without a consent screen (first-party client) and issues a refresh token", async () => {
    const jar = new CookieJar();
    await signIn(jar, "trustcenter");
    const { verifier, challenge } = pkcePair();
    const url = new URL(authorizationUrl(challenge, { prompt: "consent" }));
    url.searchParams.set("scope", "openid profile email offline_access");
    const consent = await follow(jar, url.href, redirectUri());
    const code = new URL(consent.url).searchParams.get("code");
    expect(code).toBeTruthy();
    const tokens = (await exchangeCode(code!, verifier)) as { refresh_token?: string };
    expect(tokens.refresh_token).toBeTruthy();
  });

  it("accepts client_secret_post at the token endpoint", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "lmc" });
    const login = await follow(jar, start.url, redirectUri(), formBody({ username: "lmc", password: "lmc" }));
    const response = await fetch(`${idp.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: new URL(login.url).searchParams.get("code") ?? "",
        redirect_uri: redirectUri(),
        code_verifier: start.verifier,
        client_id: IDP_CLIENT_ID,
        client_secret: idp.clientSecret,
      }),
    });
    expect(response.status).toBe(200);
  });

  it("gives patients their patient_id", async () => {
    const { claims } = await signIn(new CookieJar(), "patient1");
    expect(claims.realm_access).toEqual({ roles: ["PATIENT"] });
    expect(claims.patient_id).toBe("patient-000001");
  });

  it("shows an escaped sign-in form without scripts, prefilled from login_hint", async () => {
    const jar = new CookieJar();
    const { response } = await startAuthorization(jar, { username: `"><script>alert(1)</script>` });
    const body = await response.text();
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    expect(body).toContain('name="username"');
    expect(body).toContain('name="password"');
    expect(body).toContain("password of each demo account is its username");
    expect(body).toContain("<code>trustcenter</code>");
    expect(body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(body).not.toMatch(/<script|style=/i);
  });

  it("answers a wrong password with the form again and 401", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    const response = await browse(jar, start.url, formBody({ username: "clinic", password: "wrong" }));
    expect(response.status).toBe(401);
    const body = await response.text();
    expect(body).toContain("Unknown username or wrong password.");
    expect(body).toContain('value="clinic"');

    const retry = await signInAsClinic(jar, start.url);
    expect(new URL(retry.url).searchParams.get("code")).toBeTruthy();
  });

  it("refuses a sign-in form over 8 kB with 413 and leaves the sign-in as it was", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    const form = "username=clinic&password=clinic&pad=";
    const tooLarge = await browse(jar, start.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form + "x".repeat(8 * 1024 + 1 - form.length),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get("location")).toBeNull();

    const page = await browse(jar, start.url); // still the sign-in form: nobody signed in
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
    const login = await signInAsClinic(jar, start.url);
    expect(new URL(login.url).searchParams.get("code")).toBeTruthy();
  });

  it("passes any other method or path under /idp/interaction on to the provider", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    for (const [method, url] of [
      ["PUT", start.url],
      ["DELETE", start.url],
      ["GET", `${start.url}/abort`],
      ["POST", `${start.url}/abort/more`],
      ["GET", `${idp.issuer}/interaction`],
    ]) {
      const response = await browse(jar, url, { method });
      // oidc-provider's own 404 (the test server answers other paths "Cannot <method> <path>")
      expect([method, url, response.status, await response.text()]).toEqual([method, url, 404, "Not Found"]);
    }
    const login = await signInAsClinic(jar, start.url);
    expect(new URL(login.url).searchParams.get("code")).toBeTruthy();
  });

  it("takes the interaction's uid URL-encoded", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    const uid = start.url.slice(start.url.lastIndexOf("/") + 1);
    const encodedUid = [...uid].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
    const encoded = `${start.url.slice(0, start.url.lastIndexOf("/") + 1)}${encodedUid}`;
    // the interaction cookie's path is the plain URL's, so a browser would not send it here: send it
    const cookie = jar.header(start.url);

    const page = await fetch(encoded, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`action="/idp/interaction/${uid}"`);

    const login = await fetch(encoded, {
      ...formBody({ username: "clinic", password: "clinic" }),
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    jar.store(login);
    const done = await follow(jar, new URL(login.headers.get("location")!, encoded).href, redirectUri());
    expect(new URL(done.url).searchParams.get("code")).toBeTruthy();
  });

  it("refuses an interaction whose uid is not the browser's", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    const other = start.url.replace(/[^/]+$/, "not-this-one");
    const response = await browse(jar, other);
    expect(response.status).toBe(400);
  });

  it("requires PKCE", async () => {
    const { response, url } = await startAuthorization(new CookieJar(), { pkce: false });
    expect(response.status).toBe(303);
    const callback = new URL(url);
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("error_description")).toMatch(/PKCE/);
  });

  it("lets the user cancel the sign-in", async () => {
    const jar = new CookieJar();
    const start = await startAuthorization(jar, { username: "clinic" });
    const cancel = await follow(jar, `${start.url}/abort`, redirectUri(), { method: "POST" });
    expect(new URL(cancel.url).searchParams.get("error")).toBe("access_denied");
  });

  it("ends the provider session on GET end_session with id_token_hint and returns to the app", async () => {
    const jar = new CookieJar();
    const { tokens } = await signIn(jar, "researcher");
    const before = jar.clone();

    const params = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: `${idp.publicUrl}/auth/signin`,
      state: "bye",
    });
    const response = await browse(jar, `${idp.issuer}/session/end?${params}`);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${idp.publicUrl}/auth/signin?state=bye`);
    expect(response.headers.getSetCookie().filter((c) => c.startsWith("idp_session"))).toEqual([
      expect.stringMatching(/^idp_session=; path=\/idp; expires=Thu, 01 Jan 1970 /),
      expect.stringMatching(/^idp_session\.sig=[^;]*; path=\/idp; expires=Thu, 01 Jan 1970 /),
    ]);
    expect(jar.names().filter((n) => n.startsWith("idp_session"))).toEqual([]);

    for (const browser of [jar, before]) {
      const again = await startAuthorization(browser, { prompt: "none" });
      expect(new URL(again.url).searchParams.get("error")).toBe("login_required");
    }
  });

  it("asks for confirmation (without scripts) when end_session carries no id_token_hint", async () => {
    const jar = new CookieJar();
    await signIn(jar, "regulator");
    const response = await browse(jar, `${idp.issuer}/session/end`);
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).not.toMatch(/<script/i);
    expect(body).toContain('name="logout" value="yes"');
    const stillSignedIn = await startAuthorization(jar.clone(), { prompt: "none" });
    expect(new URL(stillSignedIn.url).searchParams.get("code")).toBeTruthy();

    const xsrf = /name="xsrf" value="([^"]+)"/.exec(body)?.[1] ?? "";
    const confirm = await browse(jar, `${idp.issuer}/session/end/confirm`, formBody({ xsrf, logout: "yes" }));
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get("location")).toBe(`${idp.issuer}/session/end/success`);
    const success = await browse(jar, `${idp.issuer}/session/end/success`);
    expect(await success.text()).toContain("You are signed out");
    const again = await startAuthorization(jar, { prompt: "none" });
    expect(new URL(again.url).searchParams.get("error")).toBe("login_required");
  });

  it("keeps keys and sessions across a restart on the same database", async () => {
    const jar = new CookieJar();
    const { tokens } = await signIn(jar, "admin");
    const kid = decodeProtectedHeader(tokens.id_token).kid;
    const port = idp.port;

    await idp.stop();
    idp = await startIdp(rel, dataDir, port);

    const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid]);
    const claims: JWTPayload = await verifyIdToken(tokens.id_token, "nonce-admin");
    expect(claims.sub).toBe("admin");

    const again = await startAuthorization(jar, { prompt: "none", nonce: "nonce-again" });
    const callback = new URL(again.url);
    expect(callback.searchParams.get("error")).toBeNull();
    const fresh = await exchangeCode(callback.searchParams.get("code") ?? "", again.verifier);
    expect((await verifyIdToken(fresh.id_token, "nonce-again")).sub).toBe("admin");
  });

  it("refuses to start in production", async () => {
    const config = { ...loadConfig({ NODE_ENV: "test", DATA_DIR: dataDir }), env: "production" as const };
    await expect(
      createIdentityProvider({ config, rel, clientId: IDP_CLIENT_ID, clientSecret: "x" }),
    ).rejects.toThrow(/development only/);
  });
});
