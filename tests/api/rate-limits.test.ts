import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { CookieJar, follow } from "../support/signin";

/**
 * The rate limits of what an anonymous caller can start (issue 34, decision 0045), against the real
 * server with small limits set by configuration (the rest of the suite runs with the defaults). Each
 * case speaks as a client of its own (X-Forwarded-For from the loopback, as a proxy would send it).
 */

const LIMITS = {
  RATE_LIMIT_SIGNIN: "5/1m",
  RATE_LIMIT_PASSWORD_USER: "3/15m",
  RATE_LIMIT_WALLET: "4/1m",
  RATE_LIMIT_CHALLENGE: "5/1m",
  RATE_LIMIT_APP_ACCOUNT: "3/1m",
  RATE_LIMIT_PAIRING: "3/1m",
};

let server: TestServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "hub-limits-"));
  server = await startTestServer(LIMITS, { dataDir });
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const from = (client: string, init: RequestInit = {}): RequestInit => ({
  redirect: "manual",
  ...init,
  headers: { "x-forwarded-for": client, ...((init.headers as Record<string, string>) ?? {}) },
});
const postJson = (client: string, body: unknown = {}): RequestInit =>
  from(client, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function statuses(n: number, call: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await call();
    await r.arrayBuffer();
    out.push(r.status);
  }
  return out;
}

async function expect429Json(r: Response) {
  expect(r.status).toBe(429);
  expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(r.headers.get("content-type")).toMatch(/application\/json/);
  expect(await r.json()).toEqual({ error: expect.stringMatching(/^Too many requests: try again in \d+ s$/) });
}

describe("rate limits", () => {
  it("on sign-in starts: 429 page with Retry-After per client, other clients unaffected", async () => {
    const login = (client: string) =>
      fetch(`${server.url}/auth/login?login_hint=clinic&returnTo=/`, from(client));
    expect(await statuses(5, () => login("192.0.2.1"))).toEqual([302, 302, 302, 302, 302]);
    const refused = await login("192.0.2.1");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("content-type")).toMatch(/text\/html/);
    expect(await refused.text()).toContain("Too many requests");
    expect((await login("192.0.2.2")).status).toBe(302);
  });

  it("count an IPv6 client by its /64 however written, an IPv4-mapped address as its IPv4 address", async () => {
    const login = (client: string) =>
      fetch(`${server.url}/auth/login?login_hint=clinic&returnTo=/`, from(client));
    const prefix = [
      "2001:db8:5::1",
      "2001:DB8:5:0::2",
      "2001:db8:5:0:ffff::3",
      "2001:db8:5::4",
      "2001:db8:5::5",
    ];
    expect(await statuses(5, () => login(prefix.shift()!))).toEqual([302, 302, 302, 302, 302]);
    expect((await login("2001:db8:5:0:abcd::6")).status).toBe(429);
    expect((await login("2001:db8:6::1")).status).toBe(302);
    const mapped = [
      "::ffff:192.0.2.50",
      "192.0.2.50",
      "::ffff:192.0.2.50",
      "192.0.2.50",
      "::ffff:192.0.2.50",
    ];
    expect(await statuses(5, () => login(mapped.shift()!))).toEqual([302, 302, 302, 302, 302]);
    expect((await login("::FFFF:192.0.2.50")).status).toBe(429);
    expect((await login("192.0.2.50")).status).toBe(429);
  });

  it("count a path however it is spelt: case, escapes, a trailing slash and Remix's .data are one path", async () => {
    const variants = ["/Auth/Login", "/%61uth/login", "/auth/login.data", "/auth/Login/", "/AUTH/LOGIN"];
    const statusOf = async (p: string) => {
      const r = await fetch(`${server.url}${p}?login_hint=clinic&returnTo=/`, from("192.0.2.3"));
      await r.arrayBuffer();
      return r.status;
    };
    const answers: number[] = [];
    for (const p of variants) answers.push(await statusOf(p));
    expect(answers.every((s) => s !== 429)).toBe(true);
    expect(await statusOf("/auth/login")).toBe(429);
    for (const p of variants) expect(await statusOf(p)).toBe(429);
    const wallet = async (p: string) => (await fetch(`${server.url}${p}`, from("192.0.2.4"))).status;
    for (let i = 0; i < 4; i++) await wallet(i % 2 ? "/AUTH/WALLET" : "/auth/wallet.data");
    expect(await wallet("/%61uth/wallet")).toBe(429);
  });

  it("on wallet sign-in starts, API and page alike", async () => {
    const start = () => fetch(`${server.url}/api/auth/eudi/start`, postJson("192.0.2.10", { returnTo: "/" }));
    expect(await statuses(4, start)).toEqual([201, 201, 201, 201]);
    await expect429Json(await start());
    const page = await fetch(`${server.url}/auth/wallet`, from("192.0.2.10"));
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBeTruthy();
  });

  it("on app-account challenges, app accounts and device pairing", async () => {
    const challenge = () => fetch(`${server.url}/api/app-accounts/challenge`, postJson("192.0.2.20"));
    expect(await statuses(5, challenge)).toEqual([201, 201, 201, 201, 201]);
    await expect429Json(await challenge());

    // refused attempts count too: an attacker's garbage is what the limit is for
    const account = () =>
      fetch(`${server.url}/api/app-accounts`, postJson("192.0.2.21", { attestation: "x" }));
    const accounts = await statuses(3, account);
    expect(accounts.every((s) => s >= 400 && s < 429)).toBe(true);
    await expect429Json(await account());

    const pair = () =>
      fetch(`${server.url}/api/patient/app-devices`, postJson("192.0.2.22", { attestation: "x" }));
    const pairs = await statuses(3, pair);
    expect(pairs.every((s) => s >= 400 && s < 429)).toBe(true);
    await expect429Json(await pair());
  });

  it("on the password form: wrong passwords per username, from any client", async () => {
    /** the embedded provider's form for a fresh sign-in of `client`, and a post of it */
    const attempt = async (client: string, username: string, password: string) => {
      const jar = new CookieJar();
      const form = await follow(`${server.url}/auth/login?login_hint=${username}&returnTo=/`, jar, {
        headers: { "x-forwarded-for": client },
      });
      const action = /<form[^>]*action="([^"]+)"/.exec(await form.text())![1].replaceAll("&amp;", "&");
      return fetch(new URL(action, form.url).toString(), {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: jar.header(),
          "x-forwarded-for": client,
        },
        body: new URLSearchParams({ username, password }).toString(),
      });
    };
    for (const [i, client] of ["192.0.2.30", "192.0.2.31", "192.0.2.32"].entries())
      expect((await attempt(client, "lmc", `wrong-${i}`)).status).toBe(401);
    // a fourth client, even with the right password: this username waits
    const refused = await attempt("192.0.2.33", "lmc", "lmc");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.text()).toContain("Too many wrong passwords for this username");
    // another username is not held up, and right passwords never count
    expect((await attempt("192.0.2.34", "regulator", "regulator")).status).toBe(303);
    expect((await attempt("192.0.2.34", "regulator", "regulator")).status).toBe(303);
  });

  it("keep their counts in the relational store: a restarted instance still refuses", async () => {
    await server.close();
    server = await startTestServer(LIMITS, { dataDir });
    const r = await fetch(`${server.url}/auth/login?login_hint=clinic&returnTo=/`, from("192.0.2.1"));
    expect(r.status).toBe(429);
  });
});
