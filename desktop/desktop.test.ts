import { CHANNELS, parseSwitchRequest, trustedSender } from "./bridge";
import { DesktopController } from "./controller";
import type {
  AppWindow,
  DesktopPageName,
  GuardableContents,
  ProbeResponse,
  ServerChild,
  Settings,
} from "./electron-api";
import { LandingTracker, landingPath, overviewBase } from "./landing";
import { menuAction, menuTemplate } from "./menu";
import { officeDecision, probeHosted, type HostedState } from "./office-hours";
import { hardenContents, webPreferences } from "./security";
import {
  dataDirFor,
  serverEnv,
  ServerStartError,
  startHubServer,
  type RunningHubServer,
} from "./server-process";
import { loadSettings, parseHostedUrl, saveSettings, type Mode } from "./settings";
import { externalDecision, navigationDecision, type GuardPolicy } from "./url-guard";

/** Desktop logic against fakes of electron-api.ts (Electron itself cannot run on these machines). */

function memorySettings(text: string | null = null): Settings & { text: string | null } {
  const s = {
    text,
    read: () => s.text,
    write: (t: string) => {
      s.text = t;
    },
  };
  return s;
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
        NODE_ENV: "development",
      });
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

describe("starting the server", () => {
  const paths = { appRoot: "/app", userData: "/data" };
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it("forks build/server/index.js with the mode's environment and resolves on the readiness message", async () => {
    const child = new FakeChild();
    const forks: { modulePath: string; env: Record<string, string>; cwd: string }[] = [];
    const started = startHubServer(
      {
        fork: (modulePath, _args, o) => {
          forks.push({ modulePath, env: o.env, cwd: o.cwd });
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

describe("the URL guard", () => {
  const policy: GuardPolicy = {
    appOrigins: ["http://127.0.0.1:41234", "https://hub.example.eu"],
    idpOrigins: ["http://127.0.0.1:41234", "https://login.example.eu"],
    pagesPrefix: "file:///app/build/desktop/pages/",
  };
  it("keeps the window on the app, its identity provider and the desktop's pages", () => {
    expect(navigationDecision("http://127.0.0.1:41234/as/clinic/catalogue", policy)).toBe("allow");
    expect(navigationDecision("https://hub.example.eu/graph", policy)).toBe("allow");
    expect(
      navigationDecision("https://login.example.eu/realms/ehds/protocol/openid-connect/auth?x=1", policy),
    ).toBe("allow");
    expect(navigationDecision("file:///app/build/desktop/pages/notice.html?kind=closed", policy)).toBe(
      "allow",
    );
  });
  it("sends allow-listed https pages to the browser and refuses everything else", () => {
    expect(navigationDecision("https://eur-lex.europa.eu/eli/reg/2025/327/oj", policy)).toBe("external");
    expect(navigationDecision("https://hl7.org/fhir/R4/", policy)).toBe("external");
    expect(navigationDecision("http://hl7.org/fhir/R4/", policy)).toBe("deny");
    expect(navigationDecision("https://europa.eu.evil.example/", policy)).toBe("deny");
    expect(navigationDecision("https://evil.example/", policy)).toBe("deny");
    expect(navigationDecision("http://127.0.0.1:9999/", policy)).toBe("deny");
    expect(navigationDecision("https://user:pw@hub.example.eu/", policy)).toBe("deny");
    expect(navigationDecision("file:///etc/passwd", policy)).toBe("deny");
    expect(navigationDecision("javascript:alert(1)", policy)).toBe("deny");
    expect(navigationDecision("not a url", policy)).toBe("deny");
    expect(externalDecision("https://www.w3.org/TR/vc-data-model-2.0/")).toBe(true);
    expect(externalDecision("mailto:access-desk@medreg.example")).toBe(false);
  });
});

describe("window security", () => {
  function fakeContents() {
    const h: {
      open?: (d: { url: string }) => { action: "deny" | "allow" };
      navigate?: (url: string, prevent: () => void) => void;
      redirect?: (url: string, prevent: () => void) => void;
      webview?: (prevent: () => void) => void;
      permission?: (p: string, cb: (g: boolean) => void) => void;
    } = {};
    const contents: GuardableContents = {
      setWindowOpenHandler: (f) => (h.open = f),
      onWillNavigate: (f) => (h.navigate = f),
      onWillRedirect: (f) => (h.redirect = f),
      onWillAttachWebview: (f) => (h.webview = f),
      setPermissionRequestHandler: (f) => (h.permission = f),
    };
    return { h, contents };
  }
  const policy = (): GuardPolicy => ({
    appOrigins: ["http://127.0.0.1:1"],
    idpOrigins: ["http://127.0.0.1:1"],
    pagesPrefix: "file:///p/",
  });

  it("turns on isolation and the sandbox, node integration off", () => {
    expect(webPreferences("/x/preload.cjs")).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      webviewTag: false,
      preload: "/x/preload.cjs",
    });
  });

  it("never opens a window; allow-listed https links go to the browser", () => {
    const { h, contents } = fakeContents();
    const opened: string[] = [];
    hardenContents(contents, policy, { openExternal: async (u) => void opened.push(u) });
    expect(h.open!({ url: "https://hl7.org/fhir/" })).toEqual({ action: "deny" });
    expect(h.open!({ url: "https://evil.example/" })).toEqual({ action: "deny" });
    expect(h.open!({ url: "http://127.0.0.1:1/catalogue" })).toEqual({ action: "deny" });
    expect(opened).toEqual(["https://hl7.org/fhir/"]);
  });

  it("guards navigation and redirects, refuses webviews and permissions", () => {
    const { h, contents } = fakeContents();
    const opened: string[] = [];
    hardenContents(contents, policy, { openExternal: async (u) => void opened.push(u) });
    const prevented: string[] = [];
    for (const url of ["http://127.0.0.1:1/graph", "https://evil.example/", "https://eur-lex.europa.eu/x"])
      h.navigate!(url, () => prevented.push(url));
    h.redirect!("https://evil.example/r", () => prevented.push("redirect"));
    expect(prevented).toEqual(["https://evil.example/", "https://eur-lex.europa.eu/x", "redirect"]);
    expect(opened).toEqual(["https://eur-lex.europa.eu/x"]);
    let webview = false;
    h.webview!(() => (webview = true));
    expect(webview).toBe(true);
    let granted: boolean | undefined;
    h.permission!("media", (g) => (granted = g));
    expect(granted).toBe(false);
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

describe("trust-center landing", () => {
  const origins = ["http://127.0.0.1:1"];
  const tc = { roles: ["TRUST_CENTER_OPERATOR"], name: "Sabine Hoffmann" };
  it("sends a trust-center operator from the overview to the trust center view, once", () => {
    const t = new LandingTracker();
    expect(t.decide("http://127.0.0.1:1/", origins, tc)).toBe("http://127.0.0.1:1/trust-center");
    expect(t.decide("http://127.0.0.1:1/", origins, tc)).toBeNull();
    expect(t.decide("http://127.0.0.1:1/as/trustcenter/", origins, tc)).toBe(
      "http://127.0.0.1:1/as/trustcenter/trust-center",
    );
    t.reset();
    expect(t.decide("http://127.0.0.1:1/", origins, tc)).toBe("http://127.0.0.1:1/trust-center");
  });
  it("leaves everyone else, other pages and other origins alone", () => {
    const t = new LandingTracker();
    expect(t.decide("http://127.0.0.1:1/", origins, { roles: ["DATA_HOLDER"], name: "x" })).toBeNull();
    expect(t.decide("http://127.0.0.1:1/catalogue", origins, tc)).toBeNull();
    expect(t.decide("https://elsewhere.example/", origins, tc)).toBeNull();
    expect(t.decide("http://127.0.0.1:1/", origins, null)).toBeNull();
    expect(landingPath(["CONNECTOR_ADMIN"])).toBeNull();
    expect(overviewBase("/as/clinic")).toBe("/as/clinic");
    expect(overviewBase("/as/clinic/graph")).toBeNull();
  });
});

describe("menu", () => {
  it("shows the three ways to start as radio items, the current one checked, disabled while starting", () => {
    const hub = menuTemplate({
      mode: "local",
      hostedUrl: "https://hub.example.eu",
      busy: false,
      devTools: false,
    })[0].submenu!;
    expect(hub.filter((i) => i.type === "radio").map((i) => [i.id, i.checked])).toEqual([
      ["mode:offline", false],
      ["mode:local", true],
      ["mode:connected", false],
    ]);
    expect(hub.find((i) => i.id === "mode:connected")?.label).toContain("hub.example.eu");
    const busy = menuTemplate({ mode: null, hostedUrl: null, busy: true, devTools: true });
    expect(busy[0].submenu!.filter((i) => i.id?.startsWith("mode:")).every((i) => i.enabled === false)).toBe(
      true,
    );
    expect(busy[2].submenu!.some((i) => i.role === "toggleDevTools")).toBe(true);
  });

  it("maps entries to actions; connected without an address opens the first-run screen there", () => {
    expect(menuAction("mode:offline", { hostedUrl: null })).toEqual({ kind: "switch", mode: "offline" });
    expect(menuAction("mode:connected", { hostedUrl: null })).toEqual({
      kind: "first-run",
      focus: "connected",
    });
    expect(menuAction("mode:connected", { hostedUrl: "https://h.example" })).toEqual({
      kind: "switch",
      mode: "connected",
    });
    expect(menuAction("first-run", { hostedUrl: null })).toEqual({ kind: "first-run" });
    expect(menuAction("nope", { hostedUrl: null })).toBeNull();
  });
});

describe("the bridge", () => {
  const opts = { pagesPrefix: "file:///app/build/desktop/pages/", localOrigin: "http://127.0.0.1:41234" };
  it("answers the desktop's pages and the local server; the hosted stack may only read the state", () => {
    expect(
      trustedSender(
        "file:///app/build/desktop/pages/notice.html?kind=closed",
        CHANNELS.openOfflineDemo,
        opts,
      ),
    ).toBe(true);
    expect(trustedSender("http://127.0.0.1:41234/as/clinic/", CHANNELS.switchMode, opts)).toBe(true);
    expect(trustedSender("https://hub.example.eu/", CHANNELS.switchMode, opts)).toBe(false);
    expect(trustedSender("https://hub.example.eu/", CHANNELS.getState, opts)).toBe(true);
    expect(trustedSender("file:///tmp/evil.html", CHANNELS.switchMode, opts)).toBe(false);
    expect(trustedSender("", CHANNELS.getState, opts)).toBe(false);
  });
  it("validates switch requests", () => {
    expect(parseSwitchRequest({ mode: "local" })).toEqual({ mode: "local" });
    expect(parseSwitchRequest({ mode: "connected", hostedUrl: "https://h.example" })).toEqual({
      mode: "connected",
      hostedUrl: "https://h.example",
    });
    expect(parseSwitchRequest({ mode: "root" })).toBeNull();
    expect(parseSwitchRequest({ mode: "local", hostedUrl: 3 })).toBeNull();
    expect(parseSwitchRequest(null)).toBeNull();
  });
});

describe("the controller", () => {
  type Shown = { url: string } | { page: DesktopPageName; query: Record<string, string> };

  function setup(
    opts: { settings?: string | null; probe?: HostedState; failStart?: Mode; whoami?: unknown } = {},
  ) {
    const shown: Shown[] = [];
    let current = "";
    const window: AppWindow = {
      loadURL: async (url) => {
        shown.push({ url });
        current = url;
      },
      loadPage: async (page, query = {}) => {
        shown.push({ page, query });
        current = `file:///pages/${page}.html`;
      },
      currentURL: () => current,
      evaluate: async () => opts.whoami ?? null,
      isDestroyed: () => false,
    };
    const settings = memorySettings(opts.settings ?? null);
    const started: Mode[] = [];
    const stopped: Mode[] = [];
    let port = 50000;
    const probes: string[] = [];
    const c = new DesktopController({
      window,
      settings,
      pagesPrefix: "file:///pages/",
      startServer: async (mode): Promise<RunningHubServer> => {
        if (opts.failStart === mode)
          throw new ServerStartError("The local server stopped before it was ready (exit code 1)", []);
        started.push(mode);
        const p = ++port;
        return { url: `http://127.0.0.1:${p}`, port: p, mode, stop: async () => void stopped.push(mode) };
      },
      probe: async (u) => {
        probes.push(u);
        return opts.probe ?? { state: "open" };
      },
    });
    return { c, shown, settings, started, stopped, probes };
  }

  it("shows the first-run screen on the first start", async () => {
    const { c, shown, started } = setup();
    await c.start();
    expect(shown).toEqual([{ page: "first-run", query: {} }]);
    expect(started).toEqual([]);
    expect(c.state.status).toBe("choosing");
  });

  it("starts the saved mode: splash, the server, then the app; remembers the choice", async () => {
    const { c, shown, settings, started } = setup();
    await c.switchMode({ mode: "offline" });
    expect(shown).toEqual([
      { page: "splash", query: { mode: "offline" } },
      { url: "http://127.0.0.1:50001/" },
    ]);
    expect(started).toEqual(["offline"]);
    expect(JSON.parse(settings.text!)).toEqual({ version: 1, mode: "offline" });
    expect(c.state).toMatchObject({ mode: "offline", status: "running", appUrl: "http://127.0.0.1:50001" });
    expect(c.guardPolicy().appOrigins).toEqual(["http://127.0.0.1:50001"]);
  });

  it("connected: keeps the offline demo's server, probes the hosted stack and shows it when open", async () => {
    const { c, shown, started, probes } = setup({ settings: '{"version":1,"mode":"offline"}' });
    await c.start();
    await c.switchMode({ mode: "connected", hostedUrl: "https://hub.example.eu/" });
    expect(started).toEqual(["offline"]); // the static server is reused
    expect(probes).toEqual(["https://hub.example.eu"]);
    expect(shown.at(-1)).toEqual({ url: "https://hub.example.eu/" });
    const policy = c.guardPolicy();
    expect(policy.appOrigins).toContain("https://hub.example.eu");
    expect(policy.idpOrigins).toContain("https://hub.example.eu");
  });

  it("connected outside office hours: the notice with the next opening; its button opens the offline demo without forgetting the hosted stack", async () => {
    const next = new Date("2025-03-17T06:00:00Z");
    const { c, shown, settings, started } = setup({
      probe: { state: "closed", nextOpening: next, reason: "hold" },
    });
    await c.switchMode({ mode: "connected", hostedUrl: "https://hub.example.eu" });
    expect(shown.at(-1)).toEqual({
      page: "notice",
      query: {
        kind: "closed",
        hostedUrl: "https://hub.example.eu",
        reason: "hold",
        nextOpening: next.toISOString(),
      },
    });
    expect(c.state.status).toBe("closed");
    await c.invoke(CHANNELS.openOfflineDemo, undefined);
    expect(shown.at(-1)).toEqual({ url: "http://127.0.0.1:50001/" });
    expect(started).toEqual(["connected"]); // one static server for both
    expect(JSON.parse(settings.text!).mode).toBe("connected");
    expect(c.state.mode).toBe("offline");
  });

  it("shows the notice when the hosted stack closes while in use (a 503 page)", async () => {
    const h = setup();
    await h.c.switchMode({ mode: "connected", hostedUrl: "https://hub.example.eu" });
    await h.c.onHttpStatus("https://hub.example.eu/graph", 200);
    await h.c.onHttpStatus("https://elsewhere.example/", 503);
    expect(h.probes).toHaveLength(1);
    await h.c.onHttpStatus("https://hub.example.eu/graph", 503);
    expect(h.probes).toHaveLength(2);
  });

  it("switching between static and live stops one server and starts the other", async () => {
    const { c, started, stopped } = setup();
    await c.switchMode({ mode: "offline" });
    await c.switchMode({ mode: "local" });
    expect(started).toEqual(["offline", "local"]);
    expect(stopped).toEqual(["offline"]);
    await c.quit();
    expect(stopped).toEqual(["offline", "local"]);
  });

  it("refuses a bad hosted address without starting anything", async () => {
    const { c, started, shown } = setup();
    expect(
      await c.invoke(CHANNELS.switchMode, { mode: "connected", hostedUrl: "http://hub.example.eu" }),
    ).toEqual({ ok: false, error: expect.stringContaining("https") });
    expect(await c.invoke(CHANNELS.switchMode, { mode: "nope" })).toEqual({
      ok: false,
      error: "Unknown way to start",
    });
    expect(started).toEqual([]);
    expect(shown).toEqual([]);
  });

  it("shows a failed start with its message", async () => {
    const { c, shown } = setup({ failStart: "local" });
    expect(await c.switchMode({ mode: "local" })).toEqual({
      ok: false,
      error: expect.stringContaining("stopped before it was ready"),
    });
    expect(shown.at(-1)).toMatchObject({ page: "notice", query: { kind: "failed", mode: "local" } });
    expect(c.state.status).toBe("failed");
  });

  it("lands a trust-center operator on the trust center view", async () => {
    const { c, shown } = setup({ whoami: { roles: ["TRUST_CENTER_OPERATOR"], name: "Sabine Hoffmann" } });
    await c.switchMode({ mode: "local" });
    await c.onPageLoaded("http://127.0.0.1:50001/");
    expect(shown.at(-1)).toEqual({ url: "http://127.0.0.1:50001/trust-center" });
    await c.onPageLoaded("https://elsewhere.example/");
    expect(shown).toHaveLength(3);
  });

  it("acts on menu entries", async () => {
    const { c, shown, started } = setup();
    await c.onMenu("mode:local");
    expect(started).toEqual(["local"]);
    await c.onMenu("mode:connected");
    expect(shown.at(-1)).toEqual({ page: "first-run", query: { focus: "connected", current: "local" } });
    await c.onMenu("home");
    expect(shown.at(-1)).toEqual({ url: "http://127.0.0.1:50001/" });
    expect(c.menu()[0].submenu!.find((i) => i.id === "mode:local")?.checked).toBe(true);
  });
});
