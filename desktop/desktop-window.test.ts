import { CHANNELS, parseSwitchRequest, trustedSender } from "./bridge";
import { DesktopController } from "./controller";
import type { AppWindow, DesktopPageName, GuardableContents } from "./electron-api";
import { LandingTracker, landingPath, overviewBase } from "./landing";
import { menuAction, menuTemplate } from "./menu";
import { type HostedState } from "./office-hours";
import { hardenContents, webPreferences } from "./security";
import { ServerStartError, type RunningHubServer } from "./server-process";
import { type Mode } from "./settings";
import { externalDecision, navigationDecision, type GuardPolicy } from "./url-guard";
import { memorySettings } from "./desktop.support";

/** Desktop logic against fakes of electron-api.ts (Electron itself cannot run on these machines).
 *
 * This file: the URL guard, window security, the trust-center landing, the menu, the bridge and the controller.
 */

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
      check?: (p: string) => boolean;
    } = {};
    const contents: GuardableContents = {
      setWindowOpenHandler: (f) => (h.open = f),
      onWillNavigate: (f) => (h.navigate = f),
      onWillRedirect: (f) => (h.redirect = f),
      onWillAttachWebview: (f) => (h.webview = f),
      setPermissionRequestHandler: (f) => (h.permission = f),
      setPermissionCheckHandler: (f) => (h.check = f),
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
    // Electron grants every permission check without a check handler, and most APIs ask only when a check fails
    expect(["notifications", "clipboard-read", "hid", "serial", "usb"].map((p) => h.check?.(p))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
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
    /** each started server's exit, as if its process stopped by itself */
    const exits: ((code: number | null) => void)[] = [];
    const c = new DesktopController({
      window,
      settings,
      pagesPrefix: "file:///pages/",
      startServer: async (mode): Promise<RunningHubServer> => {
        if (opts.failStart === mode)
          throw new ServerStartError("The local server stopped before it was ready (exit code 1)", []);
        started.push(mode);
        const p = ++port;
        const onExit: ((code: number | null) => void)[] = [];
        exits.push((code) => onExit.forEach((l) => l(code)));
        const stop = async () => {
          stopped.push(mode);
          onExit.forEach((l) => l(null));
        };
        return { url: `http://127.0.0.1:${p}`, port: p, mode, stop, onExit: (l) => void onExit.push(l) };
      },
      probe: async (u) => {
        probes.push(u);
        return opts.probe ?? { state: "open" };
      },
    });
    return { c, shown, settings, started, stopped, probes, exits };
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

  it("forgets a server that stopped by itself: its port is no longer trusted or shown, the notice says so", async () => {
    const { c, shown, exits } = setup();
    await c.switchMode({ mode: "offline" });
    await c.switchMode({ mode: "local" }); // the offline demo's server, stopped on purpose: no notice
    expect(shown.at(-1)).toEqual({ url: "http://127.0.0.1:50002/" });
    exits[1](1);
    await new Promise((r) => setTimeout(r, 0));
    expect(c.localOrigin()).toBeNull();
    expect(c.guardPolicy().appOrigins).toEqual([]);
    expect(c.state).toMatchObject({ status: "failed", message: "The local server stopped (exit code 1)" });
    expect(shown.at(-1)).toEqual({
      page: "notice",
      query: { kind: "failed", mode: "local", message: "The local server stopped (exit code 1)" },
    });
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
