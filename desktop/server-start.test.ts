import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nodeFork } from "./node-fork";
import { fetchGet, probeHosted } from "./office-hours";
import { freePort } from "./ports";
import { serverEnv, serverModulePath, startHubServer, type RunningHubServer } from "./server-process";

/**
 * The server the desktop starts, for real: build/server/index.js forked with the desktop's
 * environment for each mode (Node's child_process standing in for Electron's utility process;
 * the readiness message is the same), then asked what each mode must answer. "Connected" keeps
 * the offline demo here and probes a second server acting as the hosted stack, open and closed.
 * Needs `node scripts/build.mjs`.
 */

const appRoot = process.cwd();
let userData: string;
const running: RunningHubServer[] = [];

beforeAll(() => {
  userData = mkdtempSync(path.join(tmpdir(), "hub-desktop-"));
});
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(userData, { recursive: true, force: true });
});

const start = async (mode: "offline" | "local" | "connected") => {
  const s = await startHubServer(
    { fork: nodeFork, freePort },
    { mode, paths: { appRoot, userData }, inheritEnv: process.env, timeoutMs: 90_000 },
  );
  running.push(s);
  return s;
};

/** a hosted stack: the same build, live, with its own data and optional office hours */
async function hostedStack(extra: Record<string, string>): Promise<RunningHubServer> {
  const dir = mkdtempSync(path.join(userData, "hosted-"));
  return startHubServer(
    {
      freePort,
      fork: (modulePath, args, o) =>
        nodeFork(modulePath, args, { ...o, env: { ...o.env, SEED_PATIENTS: "10", ...extra } }),
    },
    { mode: "local", paths: { appRoot, userData: dir }, inheritEnv: process.env, timeoutMs: 90_000 },
  ).then((s) => (running.push(s), s));
}

const berlinDay = (offsetDays: number) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );

describe("the desktop's server", () => {
  it("offline demo: static mode on 127.0.0.1, the API off, the persona chooser", async () => {
    const s = await start("offline");
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serverEnv("offline", s.port, { appRoot, userData }).APP_MODE).toBe("static");
    const api = await fetch(`${s.url}/api/catalog`);
    expect(api.status).toBe(404);
    expect((await api.json()).error).toContain("static mode");
    // the public landing page (issue 40), with its way to the persona chooser
    const home = await fetch(`${s.url}/`, { redirect: "manual" });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('data-testid="landing"');
    expect(await (await fetch(`${s.url}/auth/signin`)).text()).toContain('data-testid="persona-chooser"');
    // any request, from anyone who reaches the port, is answered and the server stays up
    const bridge = await fetch(`${s.url}/internal/graph-bridge/assets/x`).catch((e: unknown) => e);
    expect(bridge instanceof Response && [bridge.status, await bridge.json()]).toEqual([
      404,
      { error: "The offline demo does not include this." },
    ]);
    expect((await fetch(`${s.url}/`)).status).toBe(200);
    // a failure answers without the server's stack trace and paths (NODE_ENV=development set explicitly)
    const failed = await fetch(`${s.url}/as/clinic/catalogue/new`, {
      method: "POST",
      headers: { Origin: s.url },
    });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(await failed.text()).not.toContain(appRoot);
    await s.stop();
    await expect(fetch(`${s.url}/`)).rejects.toThrow();
  }, 120_000);

  it("local: the live server with the embedded defaults, data under the user-data folder", async () => {
    const s = await start("local");
    const health = await (await fetch(`${s.url}/api/health`)).json();
    expect(health).toMatchObject({ status: "ok", graphdb: true, idp: true });
    const signin = await (await fetch(`${s.url}/auth/signin`)).text();
    expect(signin).toContain("persona-trustcenter");
    const login = await fetch(`${s.url}/auth/login?login_hint=clinic`, { redirect: "manual" });
    expect(login.headers.get("location")).toContain(`${s.url}/idp/`);
    expect(existsSync(path.join(userData, "local-data", "hub.sqlite"))).toBe(true);
    await s.stop();
  }, 120_000);

  it("connected: the offline demo ready here; the hosted stack open, then closed with its next opening", async () => {
    const local = await start("connected");
    expect((await fetch(`${local.url}/api/health`)).status).toBe(404); // static: the API is off
    const open = await hostedStack({});
    expect(await probeHosted(fetchGet, open.url)).toEqual({ state: "open" });

    const closed = await hostedStack({
      OFFICE_HOURS: "Mon-Sun 00:00-24:00 Europe/Berlin",
      OFFICE_HOLDS: [-1, 0, 1].map(berlinDay).join(","),
    });
    const answer = await probeHosted(fetchGet, closed.url);
    expect(answer.state).toBe("closed");
    if (answer.state === "closed") {
      expect(answer.reason).toBe("hold");
      expect(answer.nextOpening!.getTime()).toBeGreaterThan(Date.now());
    }
    await Promise.all([open.stop(), closed.stop()]);
    expect(await probeHosted(fetchGet, open.url, undefined, 1000)).toMatchObject({ state: "unreachable" });
  }, 240_000);

  it("reports a server that cannot start", async () => {
    const s = startHubServer(
      { freePort, fork: (m, a, o) => nodeFork(m, a, { ...o, env: { ...o.env, OFFICE_HOURS: "whenever" } }) },
      { mode: "local", paths: { appRoot, userData }, timeoutMs: 60_000 },
    );
    await expect(s).rejects.toThrow(/stopped before it was ready \(exit code 1\)/);
    expect(serverModulePath(appRoot)).toBe(path.join(appRoot, "build", "server", "index.js"));
  }, 90_000);
});
