import { readFileSync } from "node:fs";
import type { ProbeResponse, ServerChild } from "./electron-api";
import { officeDecision, probeHosted } from "./office-hours";
import { dataDirFor, serverEnv, ServerStartError, startHubServer } from "./server-process";
import { loadSettings, parseHostedUrl, saveSettings } from "./settings";
import { memorySettings } from "./desktop.support";

/** Desktop logic against fakes of electron-api.ts (Electron itself cannot run on these machines).
 *
 * This file: settings, the server's environment, starting the server, office hours.
 */

class FakeChild implements ServerChild {
  pid = 4242;
  killed = 0;
  private message: ((m: unknown) => void)[] = [];
  private exit: ((c: number | null) => void)[] = [];
  private output: ((l: string) => void)[] = [];
  constructor(private readonly exitOnKill = true) {}
  onMessage(l: (m: unknown) => void) {
    this.message.push(l);
  }
  onExit(l: (c: number | null) => void) {
    this.exit.push(l);
  }
  onOutput(l: (line: string) => void) {
    this.output.push(l);
  }
  kill() {
    this.killed++;
    if (this.exitOnKill) queueMicrotask(() => this.emitExit(null));
  }
  emitMessage(m: unknown) {
    this.message.forEach((l) => l(m));
  }
  emitExit(code: number | null) {
    this.exit.forEach((l) => l(code));
  }
  emitOutput(line: string) {
    this.output.forEach((l) => l(line));
  }
}

function manualTimers() {
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
  return {
    timers,
    setTimeout: (fn: () => void, ms: number) => {
      const t = { fn, ms, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimeout: (h: unknown) => {
      (h as { cleared: boolean }).cleared = true;
    },
    fire(ms: number) {
      for (const t of timers) if (!t.cleared && t.ms === ms) t.fn();
    },
  };
}

describe("settings", () => {
  it("starts with the first-run screen when nothing (or nothing valid) is saved", () => {
    expect(loadSettings(memorySettings()).mode).toBeNull();
    expect(loadSettings(memorySettings("{not json")).mode).toBeNull();
    expect(loadSettings(memorySettings('{"version":1,"mode":"teleport"}')).mode).toBeNull();
    expect(loadSettings(memorySettings('{"version":1,"mode":"connected"}')).mode).toBeNull();
  });

  it("keeps the chosen mode and hosted address", () => {
    const store = memorySettings();
    saveSettings(store, { version: 1, mode: "connected", hostedUrl: "https://hub.example.eu" });
    expect(loadSettings(store)).toEqual({
      version: 1,
      mode: "connected",
      hostedUrl: "https://hub.example.eu",
    });
  });

  it("accepts https hosted stacks, and http only on this computer", () => {
    expect(parseHostedUrl(" https://hub.example.eu/app/ ")).toEqual({
      ok: true,
      url: "https://hub.example.eu/app",
    });
    expect(parseHostedUrl("http://127.0.0.1:3000")).toEqual({ ok: true, url: "http://127.0.0.1:3000" });
    expect(parseHostedUrl("http://hub.example.eu").ok).toBe(false);
    expect(parseHostedUrl("https://user:pw@hub.example.eu").ok).toBe(false);
    expect(parseHostedUrl("hub").ok).toBe(false);
    expect(parseHostedUrl("file:///etc/passwd").ok).toBe(false);
  });
});

describe("the installed app", () => {
  it("flips Electron's fuses: no plain Node, no NODE_OPTIONS or inspector, app.asar only, cookies encrypted", () => {
    const yml = readFileSync("electron-builder.yml", "utf8");
    const block = /^electronFuses:\n((?: {2}\w+: \w+\n)+)/m.exec(yml)?.[1] ?? "";
    const fuses = Object.fromEntries([...block.matchAll(/(\w+): (\w+)/g)].map(([, k, v]) => [k, v]));
    expect(fuses).toEqual({
      runAsNode: "false",
      enableNodeOptionsEnvironmentVariable: "false",
      enableNodeCliInspectArguments: "false",
      onlyLoadAppFromAsar: "true",
      enableCookieEncryption: "true",
    });
  });
});

describe("the server's environment", () => {
  const paths = { appRoot: "/app", userData: "/home/u/.config/hub" };
  it("is static mode for the offline demo and the connected stand-by, live for local; loopback, a given port, data under userData", () => {
    for (const [mode, appMode] of [
      ["offline", "static"],
      ["connected", "static"],
      ["local", "live"],
    ] as const) {
      const env = serverEnv(mode, 41234, paths, {});
      expect(env).toMatchObject({
        APP_MODE: appMode,
        HOST: "127.0.0.1",
        PORT: "41234",
        PUBLIC_URL: "http://127.0.0.1:41234",
      });
      // unset: development (the embedded identity provider refuses production) without error details
      expect(env.NODE_ENV).toBeUndefined();
      expect(env.DATA_DIR.startsWith(paths.userData)).toBe(true);
    }
    expect(dataDirFor("local", paths.userData)).not.toBe(dataDirFor("offline", paths.userData));
  });

  it("inherits only basic variables from the desktop's environment", () => {
    const env = serverEnv("local", 1, paths, {
      PATH: "/bin",
      HOME: "/home/u",
      OIDC_ISSUER: "https://evil.example",
      NEO4J_URI: "bolt://x",
      APP_MODE: "static",
    });
    expect(env.PATH).toBe("/bin");
    expect(env.OIDC_ISSUER).toBeUndefined();
    expect(env.NEO4J_URI).toBeUndefined();
    expect(env.APP_MODE).toBe("live");
  });
});

describe("starting the server", () => {
  const paths = { appRoot: "/app", userData: "/data" };
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it("forks build/server/index.js with the mode's environment and resolves on the readiness message", async () => {
    const child = new FakeChild();
    const forks: {
      modulePath: string;
      env: Record<string, string>;
      cwd: string;
      execArgv: readonly string[];
    }[] = [];
    const started = startHubServer(
      {
        fork: (modulePath, _args, o) => {
          forks.push({ modulePath, env: o.env, cwd: o.cwd, execArgv: o.execArgv });
          return child;
        },
        freePort: async () => 45678,
      },
      { mode: "offline", paths },
    );
    await tick();
    child.emitMessage({ type: "progress" });
    child.emitMessage({ type: "ready", url: "http://127.0.0.1:45678", port: 45678 });
    const s = await started;
    expect(s).toMatchObject({ url: "http://127.0.0.1:45678", port: 45678, mode: "offline" });
    expect(forks).toEqual([
      {
        modulePath: "/app/build/server/index.js",
        env: expect.objectContaining({ APP_MODE: "static", PORT: "45678" }),
        cwd: "/app",
        execArgv: ["--max-semi-space-size=64", "--max-old-space-size=512"],
      },
    ]);
    await s.stop();
    expect(child.killed).toBe(1);
  });

  it("fails with the server's last output when it exits before it is ready", async () => {
    const child = new FakeChild();
    const started = startHubServer({ fork: () => child, freePort: async () => 1 }, { mode: "local", paths });
    await tick();
    child.emitOutput("Invalid configuration:");
    child.emitOutput("  - OFFICE_HOURS: bad");
    child.emitExit(1);
    const e = await started.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServerStartError);
    expect((e as ServerStartError).message).toContain("stopped before it was ready (exit code 1)");
    expect((e as ServerStartError).output).toEqual(["Invalid configuration:", "  - OFFICE_HOURS: bad"]);
  });

  it("times out, and stops the process it started", async () => {
    const child = new FakeChild();
    const timers = manualTimers();
    const started = startHubServer(
      { fork: () => child, freePort: async () => 1, ...timers },
      { mode: "local", paths, timeoutMs: 30_000 },
    );
    await tick();
    timers.fire(30_000);
    await expect(started).rejects.toThrow("did not report ready within 30 s");
    expect(child.killed).toBe(1);
  });

  it("retries once with another port when the chosen one was taken meanwhile", async () => {
    const children = [new FakeChild(), new FakeChild()];
    const ports = [1111, 2222];
    let n = 0;
    const started = startHubServer(
      { fork: () => children[n++], freePort: async () => ports.shift()! },
      { mode: "offline", paths },
    );
    await tick();
    children[0].emitOutput("Error: listen EADDRINUSE: address already in use 127.0.0.1:1111");
    children[0].emitExit(1);
    await tick();
    await tick();
    children[1].emitMessage({ type: "ready", url: "http://127.0.0.1:2222", port: 2222 });
    expect((await started).port).toBe(2222);
  });

  it("stop() gives up waiting after the stop time-out when the process does not exit", async () => {
    const child = new FakeChild(false);
    const timers = manualTimers();
    const started = startHubServer(
      { fork: () => child, freePort: async () => 1, ...timers },
      { mode: "offline", paths, stopTimeoutMs: 5000 },
    );
    await tick();
    child.emitMessage({ type: "ready", url: "http://127.0.0.1:1", port: 1 });
    const s = await started;
    const stopped = s.stop();
    timers.fire(5000);
    await stopped;
    expect(child.killed).toBe(1);
  });
});

describe("office hours of the hosted stack", () => {
  const now = new Date("2025-03-14T21:00:00Z");
  const res = (status: number, body = "", headers: Record<string, string> = {}): ProbeResponse => ({
    status,
    body,
    headers,
  });

  it("is closed on the offline notice (503 with Retry-After), with the next opening from the page", () => {
    const page = res(
      503,
      '<p>It opens again on <time datetime="2025-03-17T06:00:00.000Z">Monday</time>.</p> runs only during office hours',
      { "retry-after": "32400" },
    );
    expect(officeDecision(page, res(200, "{}"), now)).toEqual({
      state: "closed",
      nextOpening: new Date("2025-03-17T06:00:00.000Z"),
      reason: "hours",
    });
  });

  it("reads the JSON answer of a stopped stack, a hold day, and falls back to Retry-After", () => {
    const json = res(
      503,
      '{"error":"Service unavailable: on hold today","nextOpening":"2025-03-15T06:00:00.000Z","reason":"hold"}',
      { "Retry-After": "3600" },
    );
    expect(officeDecision(new Error("refused"), json, now)).toEqual({
      state: "closed",
      nextOpening: new Date("2025-03-15T06:00:00.000Z"),
      reason: "hold",
    });
    expect(officeDecision(res(503, "down", { "retry-after": "120" }), new Error("x"), now)).toEqual({
      state: "closed",
      nextOpening: new Date(now.getTime() + 120_000),
      reason: "unknown",
    });
  });

  it("is open on a sign-in redirect, and a 503 without Retry-After (graph down) is not a closed stack", () => {
    expect(officeDecision(res(302), res(200), now)).toEqual({ state: "open" });
    expect(officeDecision(res(200), res(503, '{"status":"down"}'), now)).toEqual({ state: "open" });
  });

  it("is unreachable when nothing answers", async () => {
    expect(officeDecision(new Error("ECONNREFUSED"), new Error("ECONNREFUSED"), now)).toEqual({
      state: "unreachable",
      error: "ECONNREFUSED",
    });
    const asked: string[] = [];
    const r = await probeHosted(
      async (url) => {
        asked.push(url);
        throw new Error("timeout");
      },
      "https://hub.example.eu/",
      () => now,
    );
    expect(r.state).toBe("unreachable");
    expect(asked.sort()).toEqual(["https://hub.example.eu/", "https://hub.example.eu/api/health"]);
  });
});
