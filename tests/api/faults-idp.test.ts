import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { IDP_CLIENT_ID } from "../../server/auth/idp/provider";
import { startIdp, type RunningIdp } from "../support/idp";
import { openDatabase, type Db } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { startFaultProxy, type FaultFilter, type FaultMode, type FaultProxy } from "../support/fault-proxy";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { CookieJar, signIn, type Signed } from "../support/signin";

/**
 * Identity-provider faults, black-box: the hub runs with OIDC_ISSUER pointing at a fault proxy
 * (tests/support/fault-proxy.ts, real HTTP) in front of a real OpenID provider (the embedded
 * provider's factory, on a port of its own, with the proxy's address as its issuer identifier).
 * Every call the sign-in makes to the provider — discovery (sign-in start), token and JWKS (the
 * callback) — meets each fault: connection refused, 500, garbage JSON, slower than
 * UPSTREAM_TIMEOUT_MS, cut mid-body, connection reset. The hub must answer the browser within the
 * time-out plus one second with its sign-in page and a readable message (never a 5xx, never a hang),
 * `/api/health` must say `idp: false` (degraded) while discovery fails, and a full sign-in must work
 * once the provider is back.
 *
 * RELIABILITY_OUT_IDP=<file> writes the measured answers as JSON.
 */

const TIMEOUT_MS = 2000;
const BUDGET_MS = TIMEOUT_MS + 1000;
/** the "slow" fault answers long after the budget, so a missing time-out shows as a late answer */
const SLOW_MS = 8000;
const UNREACHABLE = "The identity provider is not reachable. Try again in a moment.";

const DISCOVERY: FaultFilter = (_m, p) => p.startsWith("/idp/.well-known/openid-configuration");
const TOKEN: FaultFilter = (m, p) => m === "POST" && p.startsWith("/idp/token");
const JWKS: FaultFilter = (_m, p) => p.startsWith("/idp/jwks");
const ALL_FAULTS: FaultMode[] = ["refused", "500", "garbage", "slow", "cut", "reset"];

let idpDir: string;
let idpDb: Db;
let idp: RunningIdp;
let proxy: FaultProxy;
let hub: TestServer;
let admin: Signed;

interface Row {
  call: string;
  fault: FaultMode;
  status: number;
  ms: number;
  message: string | null;
  recovered: boolean;
  /** discovery faults: the logout's answer, and how long until /api/health said idp: false */
  logoutMs?: number;
  healthDownAfterMs?: number;
}
const rows: Row[] = [];

beforeAll(async () => {
  proxy = await startFaultProxy({ routes: {}, slowMs: SLOW_MS });
  const hubPort = await freePort();
  const hubUrl = `http://127.0.0.1:${hubPort}`;
  idpDir = mkdtempSync(path.join(tmpdir(), "hub-faults-idp-"));
  idpDb = openDatabase(idpDir);
  idp = await startIdp(openSqliteRelational(idpDb), idpDir, 0, {
    issuer: `${proxy.url}/idp`,
    appUrl: hubUrl,
  });
  proxy.setRoute("", idp.url);
  hub = await startTestServer({
    PORT: String(hubPort),
    PUBLIC_URL: hubUrl,
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: IDP_CLIENT_ID,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  admin = await signIn(hub.url, "admin");
}, 60_000);

afterAll(async () => {
  if (process.env.RELIABILITY_OUT_IDP)
    writeFileSync(process.env.RELIABILITY_OUT_IDP, JSON.stringify(rows, null, 2));
  await hub?.close();
  await proxy?.close();
  await idp?.stop();
  idpDb?.close();
  if (idpDir) rmSync(idpDir, { recursive: true, force: true });
});

// a failed case must not leave the provider away for the next
afterEach(async () => {
  await proxy?.setMode("ok");
});

/** one browser request to the hub, not following redirects, timed */
async function hubGet(jar: CookieJar, url: string): Promise<{ res: Response; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url.startsWith("http") ? url : `${hub.url}${url}`, {
    redirect: "manual",
    headers: { cookie: jar.header() },
    signal: AbortSignal.timeout(SLOW_MS + 5000),
  });
  jar.store(res);
  await res.arrayBuffer();
  return { res, ms: performance.now() - t0 };
}

/** the browser through the provider's pages (via the proxy) until it is sent to the hub's callback */
async function untilCallback(jar: CookieJar, authorizeUrl: string, username: string): Promise<string> {
  let current = authorizeUrl;
  let init: RequestInit = {};
  for (let hops = 0; hops < 12; hops++) {
    const res = await fetch(current, {
      ...init,
      redirect: "manual",
      headers: { ...init.headers, cookie: jar.header() },
    });
    jar.store(res);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      current = new URL(location, current).href;
      init = {};
      if (current.startsWith(`${hub.url}/auth/callback`)) return current;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action)
      throw new Error(`provider page ${res.status} at ${current}: ${html.slice(0, 200)}`);
    current = new URL(action.replaceAll("&amp;", "&"), current).href;
    init = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username, password: username }).toString(),
    };
  }
  throw new Error(`no redirect to the callback from ${authorizeUrl}`);
}

/** the hub's answer must be its sign-in page with the message, in time */
function expectClearRefusal(res: Response, ms: number, label: string): string | null {
  expect(res.status, label).toBe(302);
  const location = new URL(res.headers.get("location") ?? "", hub.url);
  expect(location.pathname, label).toBe("/auth/signin");
  expect(ms, `${label}: answered after ${Math.round(ms)} ms`).toBeLessThan(BUDGET_MS);
  return location.searchParams.get("error");
}

async function healthIdp(expected: boolean): Promise<{ status: string; idp: boolean }> {
  let last = { status: "", idp: !expected };
  for (const until = Date.now() + 10_000; Date.now() < until;) {
    const res = await fetch(`${hub.url}/api/health`);
    last = (await res.json()) as { status: string; idp: boolean };
    if (last.idp === expected) return last;
    await new Promise((r) => setTimeout(r, 300));
  }
  return last;
}

/** drops the hub's discovery and signing keys, as the operator console does (fetched again at the next sign-in) */
async function restartRelyingParty() {
  const res = await admin.api("/api/admin/components/identity-provider/restart", { method: "POST" });
  expect(res.status).toBe(200);
}

async function expectFullSignIn(username: string) {
  const user = await signIn(hub.url, username);
  const session = (await (await user.api("/api/auth/session")).json()) as { user?: { username?: string } };
  expect(session.user?.username).toBe(username);
}

async function recover(
  call: string,
  fault: FaultMode,
  status: number,
  ms: number,
  message: string | null,
  extra: Partial<Row> = {},
) {
  await proxy.setMode("ok");
  await expectFullSignIn("researcher");
  rows.push({ call, fault, status, ms: Math.round(ms), message, recovered: true, ...extra });
}

describe("identity provider faults: every sign-in call answers in time and recovers", () => {
  it("a clean sign-in through the proxy works, and health says the provider is up", async () => {
    await expectFullSignIn("researcher");
    expect(await healthIdp(true)).toMatchObject({ idp: true, status: "ok" });
  });

  describe.each(ALL_FAULTS)("discovery %s", (fault) => {
    it("sign-in start answers the sign-in page with a message; health degraded; then sign-in works", async () => {
      await restartRelyingParty();
      await proxy.setMode(fault, DISCOVERY);
      const jar = new CookieJar();
      const { res, ms } = await hubGet(jar, "/auth/login?login_hint=researcher&returnTo=/");
      const message = expectClearRefusal(res, ms, `discovery ${fault}`);
      expect(message).toBe(UNREACHABLE);
      const page = await hubGet(jar, res.headers.get("location")!);
      expect(page.res.status).toBe(200);
      const h0 = performance.now();
      expect(await healthIdp(false)).toMatchObject({ idp: false, status: "degraded" });
      const healthDownAfterMs = Math.round(performance.now() - h0 + ms);
      // logout needs discovery too (for the provider's end-session address): it still ends the app session
      const t0 = performance.now();
      const out = await admin.api("/auth/logout", { method: "POST", headers: { Origin: hub.url } });
      const logoutMs = performance.now() - t0;
      expect(out.status).toBe(302);
      expect(logoutMs, `logout answered after ${Math.round(logoutMs)} ms`).toBeLessThan(BUDGET_MS);
      expect(out.headers.get("location")).toBe("/auth/signin");
      admin = await signInWhenUp("admin");
      await recover("discovery", fault, res.status, ms, message, {
        logoutMs: Math.round(logoutMs),
        healthDownAfterMs,
      });
      expect(await healthIdp(true)).toMatchObject({ idp: true, status: "ok" });
    }, 60_000);
  });

  describe.each(ALL_FAULTS)("token %s", (fault) => {
    it("the callback answers the sign-in page with a message; then sign-in works", async () => {
      const jar = new CookieJar();
      const start = await hubGet(jar, "/auth/login?login_hint=researcher&returnTo=/");
      expect(start.res.status).toBe(302);
      const callback = await untilCallback(jar, start.res.headers.get("location")!, "researcher");
      // "refused" takes the whole provider away; the others hit the token request only
      await proxy.setMode(fault, fault === "refused" ? undefined : TOKEN);
      const { res, ms } = await hubGet(jar, callback);
      const message = expectClearRefusal(res, ms, `token ${fault}`);
      expect(message).toBe(UNREACHABLE);
      expect(jar.get("app-auth.session-token")).toBeUndefined();
      await recover("token", fault, res.status, ms, message);
    }, 60_000);
  });

  // a per-path "refused" does not exist (only the whole listener refuses); "reset" stands in for it
  describe.each(ALL_FAULTS.filter((f) => f !== "refused"))("JWKS %s", (fault) => {
    it("the callback answers the sign-in page with a message; then sign-in works", async () => {
      await restartRelyingParty(); // the signing keys are fetched again at the next verification
      const jar = new CookieJar();
      const start = await hubGet(jar, "/auth/login?login_hint=researcher&returnTo=/");
      expect(start.res.status).toBe(302);
      const callback = await untilCallback(jar, start.res.headers.get("location")!, "researcher");
      await proxy.setMode(fault, JWKS);
      const { res, ms } = await hubGet(jar, callback);
      const message = expectClearRefusal(res, ms, `JWKS ${fault}`);
      expect(message).toBe(UNREACHABLE);
      expect(jar.get("app-auth.session-token")).toBeUndefined();
      await recover("JWKS", fault, res.status, ms, message);
    }, 60_000);
  });

  it("a provider gone after a sign-in (discovery kept): the next sign-in start is the hub's message, not the provider's dead address", async () => {
    await expectFullSignIn("researcher");
    await proxy.setMode("refused");
    const jar = new CookieJar();
    const { res, ms } = await hubGet(jar, "/auth/login?login_hint=researcher&returnTo=/");
    expect(expectClearRefusal(res, ms, "provider gone, discovery kept")).toBe(UNREACHABLE);
    await recover("all", "refused", res.status, ms, UNREACHABLE);
  }, 60_000);

  it("a provider that answers and refuses (a forged code) is a failed sign-in, not an unreachable provider", async () => {
    const jar = new CookieJar();
    const start = await hubGet(jar, "/auth/login?login_hint=researcher&returnTo=/");
    const callback = new URL(await untilCallback(jar, start.res.headers.get("location")!, "researcher"));
    callback.searchParams.set("code", "forged-code");
    const { res, ms } = await hubGet(jar, callback.href);
    expect(expectClearRefusal(res, ms, "forged code")).toBe("Sign-in failed. Please start again.");
    expect(jar.get("app-auth.session-token")).toBeUndefined();
  });

  it("a provider whose discovery names another issuer is refused: the sign-in page says so, health degraded", async () => {
    // the same provider reached at its own address, not at the issuer it names (the proxy's)
    const port = await freePort();
    const other = await startTestServer({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: `${idp.url}/idp`,
      OIDC_CLIENT_ID: IDP_CLIENT_ID,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    try {
      const res = await fetch(`${other.url}/auth/login?login_hint=researcher&returnTo=/`, {
        redirect: "manual",
      });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location") ?? "", other.url);
      expect(location.pathname).toBe("/auth/signin");
      expect(location.searchParams.get("error")).toBe(UNREACHABLE);
      const health = (await (await fetch(`${other.url}/api/health`)).json()) as {
        idp: boolean;
        status: string;
      };
      expect(health).toMatchObject({ idp: false, status: "degraded" });
    } finally {
      await other.close();
    }
  }, 60_000);

  it("the table of answers", () => {
    console.log(
      rows
        .map(
          (r) =>
            `${r.call.padEnd(9)} ${r.fault.padEnd(8)} ${r.status} ${String(r.ms).padStart(5)} ms  ${r.message}` +
            (r.logoutMs === undefined
              ? ""
              : `; logout ${r.logoutMs} ms, health idp:false after ${r.healthDownAfterMs} ms`),
        )
        .join("\n"),
    );
    // and one row for the provider gone after a sign-in (every call refused, discovery kept)
    expect(rows).toHaveLength(ALL_FAULTS.length * 3 - 1 + 1);
  });
});

async function signInWhenUp(username: string): Promise<Signed> {
  await proxy.setMode("ok");
  return signIn(hub.url, username);
}
