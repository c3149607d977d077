import type { AppWindow, MenuItemSpec, Settings } from "./electron-api";
import {
  CHANNELS,
  parseSwitchRequest,
  type DesktopState,
  type SwitchRequest,
  type SwitchResult,
} from "./bridge";
import { LandingTracker, WHOAMI_EXPRESSION, type Whoami } from "./landing";
import { menuAction, menuTemplate, type MenuAction } from "./menu";
import type { HostedState } from "./office-hours";
import type { RunningHubServer } from "./server-process";
import { loadSettings, parseHostedUrl, saveSettings, type DesktopSettings, type Mode } from "./settings";
import { idpOriginsFor, type GuardPolicy } from "./url-guard";

/**
 * The desktop's behaviour, with Electron behind interfaces: which mode runs, the server for it,
 * what the window shows (splash, first-run screen, the app, the hosted stack, the offline notice),
 * the menu, the bridge calls and the trust-center landing. main.ts wires it to Electron.
 *
 * Servers: "local" runs the live server; "offline" runs static mode; "connected" shows the
 * hosted stack and keeps static mode running here, so the offline demo is one click away when
 * the hosted stack is closed (office hours, hold days) or out of reach.
 */

export type ServerKind = "live" | "static";
export const serverKindOf = (mode: Mode): ServerKind => (mode === "local" ? "live" : "static");

export interface ControllerDeps {
  window: AppWindow;
  settings: Settings;
  /** starts the server the desktop's way (server-process.ts) */
  startServer(mode: Mode): Promise<RunningHubServer>;
  /** asks the hosted stack whether it is open (office-hours.ts) */
  probe(hostedUrl: string): Promise<HostedState>;
  /** the hosted stack's identity provider issuer, if it says (GET /api/keycloak-config) */
  discoverIssuer?(hostedUrl: string): Promise<string | undefined>;
  /** file:// prefix of the desktop's own pages */
  pagesPrefix: string;
  onChange?(state: DesktopState): void;
  log?(line: string): void;
  devTools?: boolean;
}

export class DesktopController {
  private settings: DesktopSettings;
  private server: RunningHubServer | null = null;
  private serverKind: ServerKind | null = null;
  private issuerOrigins: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private readonly landing = new LandingTracker();
  /** the mode shown right now (may differ from the saved one: the offline demo after a notice) */
  state: DesktopState;

  constructor(private readonly deps: ControllerDeps) {
    this.settings = loadSettings(deps.settings);
    this.state = {
      mode: null,
      hostedUrl: this.settings.hostedUrl ?? null,
      appUrl: null,
      status: "choosing",
      message: null,
    };
  }

  private set(patch: Partial<DesktopState>) {
    this.state = { ...this.state, ...patch };
    this.deps.onChange?.(this.state);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** on app ready: the saved mode, or the first-run screen */
  start(): Promise<void> {
    if (!this.settings.mode) return this.showFirstRun();
    return this.switchMode({ mode: this.settings.mode, hostedUrl: this.settings.hostedUrl }).then(
      () => undefined,
    );
  }

  showFirstRun(focus?: Mode, about = false): Promise<void> {
    this.set({ status: this.state.mode ? this.state.status : "choosing" });
    const q: Record<string, string> = {};
    if (focus) q.focus = focus;
    if (about) q.about = "1";
    if (this.settings.hostedUrl) q.hostedUrl = this.settings.hostedUrl;
    if (this.settings.mode) q.current = this.settings.mode;
    return this.deps.window.loadPage("first-run", q);
  }

  /** switch (and remember) the way to start */
  switchMode(req: SwitchRequest, opts: { remember?: boolean } = {}): Promise<SwitchResult> {
    let hostedUrl: string | undefined;
    if (req.mode === "connected") {
      const parsed = parseHostedUrl(req.hostedUrl ?? this.settings.hostedUrl ?? "");
      if (!parsed.ok) return Promise.resolve({ ok: false, error: parsed.error });
      hostedUrl = parsed.url;
    }
    return this.serial(async () => {
      if (opts.remember !== false) {
        this.settings = { version: 1, mode: req.mode, hostedUrl: hostedUrl ?? this.settings.hostedUrl };
        saveSettings(this.deps.settings, this.settings);
      }
      return this.run(req.mode, hostedUrl);
    });
  }

  /** the notice's button: the offline demo now, without changing the saved way to start */
  openOfflineDemo(): Promise<SwitchResult> {
    return this.switchMode({ mode: "offline" }, { remember: false });
  }

  retryHosted(): Promise<SwitchResult> {
    if (!this.settings.hostedUrl) return Promise.resolve({ ok: false, error: "No hosted stack is set up" });
    return this.switchMode({ mode: "connected", hostedUrl: this.settings.hostedUrl }, { remember: false });
  }

  private async ensureServer(mode: Mode): Promise<RunningHubServer> {
    const kind = serverKindOf(mode);
    if (this.server && this.serverKind === kind) return this.server;
    await this.stopServer();
    const server = await this.deps.startServer(mode);
    this.server = server;
    this.serverKind = kind;
    // stopped by itself: its port is no longer ours (another program may take it), so nothing trusts or shows it
    server.onExit((code) => {
      if (this.server !== server) return; // stopped on purpose
      void this.stopServer();
      if (this.state.mode === "connected") return; // the window shows the hosted stack
      const message = `The ${mode} server stopped (exit code ${code ?? "none"})`;
      this.set({ status: "failed", message });
      void this.serial(() => this.deps.window.loadPage("notice", { kind: "failed", mode, message }));
    });
    return server;
  }

  private async stopServer() {
    const s = this.server;
    this.server = null;
    this.serverKind = null;
    if (s) await s.stop();
  }

  private async run(mode: Mode, hostedUrl: string | undefined): Promise<SwitchResult> {
    const w = this.deps.window;
    this.landing.reset();
    this.set({
      mode,
      hostedUrl: hostedUrl ?? this.state.hostedUrl,
      status: "starting",
      message: null,
      appUrl: null,
    });
    await w.loadPage("splash", { mode });
    let server: RunningHubServer;
    try {
      server = await this.ensureServer(mode);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.deps.log?.(`server failed to start: ${message}`);
      this.set({ status: "failed", message });
      await w.loadPage("notice", { kind: "failed", mode, message });
      return { ok: false, error: message };
    }
    if (mode !== "connected") {
      this.set({ status: "running", appUrl: server.url });
      await w.loadURL(`${server.url}/`);
      return { ok: true };
    }
    return this.showHosted(hostedUrl!);
  }

  private async showHosted(hostedUrl: string): Promise<SwitchResult> {
    const w = this.deps.window;
    const answer = await this.deps.probe(hostedUrl);
    if (answer.state === "open") {
      const issuer = await this.deps.discoverIssuer?.(hostedUrl).catch(() => undefined);
      this.issuerOrigins = idpOriginsFor(new URL(hostedUrl).origin, issuer);
      this.set({ status: "running", appUrl: new URL(hostedUrl).origin });
      await w.loadURL(`${hostedUrl}/`);
      return { ok: true };
    }
    if (answer.state === "closed") {
      const message = answer.nextOpening
        ? `Opens again ${answer.nextOpening.toISOString()}`
        : "No opening time is scheduled";
      this.set({ status: "closed", message });
      await w.loadPage("notice", {
        kind: "closed",
        hostedUrl,
        reason: answer.reason,
        ...(answer.nextOpening ? { nextOpening: answer.nextOpening.toISOString() } : {}),
      });
      return { ok: true };
    }
    this.set({ status: "closed", message: answer.error });
    await w.loadPage("notice", { kind: "unreachable", hostedUrl, message: answer.error });
    return { ok: true };
  }

  /** the window got an HTTP error from the hosted stack (did-navigate): a 503 means it closed meanwhile */
  async onHttpStatus(url: string, status: number): Promise<void> {
    if (
      status !== 503 ||
      this.state.mode !== "connected" ||
      this.state.status !== "running" ||
      !this.state.hostedUrl
    )
      return;
    if (!url.startsWith(new URL(this.state.hostedUrl).origin)) return;
    await this.serial(() => this.showHosted(this.state.hostedUrl!));
  }

  /** after a page finished loading: trust-center operators land on the trust center view */
  async onPageLoaded(url: string): Promise<void> {
    const origins = this.guardPolicy().appOrigins;
    if (!origins.some((o) => url.startsWith(o))) return;
    let who: Whoami | null = null;
    try {
      who = (await this.deps.window.evaluate(WHOAMI_EXPRESSION)) as Whoami | null;
    } catch {
      return;
    }
    const target = this.landing.decide(url, origins, who);
    if (target) await this.deps.window.loadURL(target);
  }

  /** where the window may go now (url-guard.ts) */
  guardPolicy(): GuardPolicy {
    const appOrigins: string[] = [];
    if (this.server) appOrigins.push(new URL(this.server.url).origin);
    const idp: string[] = [...appOrigins];
    if (this.state.mode === "connected" && this.state.hostedUrl) {
      const hosted = new URL(this.state.hostedUrl).origin;
      appOrigins.push(hosted);
      idp.push(...(this.issuerOrigins.length ? this.issuerOrigins : [hosted]));
    }
    return { appOrigins, idpOrigins: [...new Set(idp)], pagesPrefix: this.deps.pagesPrefix };
  }

  localOrigin(): string | null {
    return this.server ? new URL(this.server.url).origin : null;
  }

  menu(): MenuItemSpec[] {
    return menuTemplate({
      mode: this.state.mode,
      hostedUrl: this.settings.hostedUrl ?? null,
      busy: this.state.status === "starting",
      devTools: !!this.deps.devTools,
    });
  }

  async onMenu(id: string): Promise<void> {
    const action: MenuAction | null = menuAction(id, { hostedUrl: this.settings.hostedUrl ?? null });
    if (!action) return;
    switch (action.kind) {
      case "switch":
        await this.switchMode({ mode: action.mode });
        return;
      case "first-run":
        await this.showFirstRun(action.focus);
        return;
      case "about":
        await this.showFirstRun(undefined, true);
        return;
      case "reload": {
        const url = this.deps.window.currentURL();
        if (url.startsWith("file:")) await this.start();
        else await this.deps.window.loadURL(url);
        return;
      }
      case "home":
        if (this.state.mode === "connected" && this.state.status === "running" && this.state.hostedUrl)
          await this.deps.window.loadURL(`${this.state.hostedUrl}/`);
        else if (this.server && this.state.status === "running")
          await this.deps.window.loadURL(`${this.server.url}/`);
        return;
    }
  }

  /** a bridge call from a window (main.ts has checked the sender) */
  async invoke(channel: string, arg: unknown): Promise<unknown> {
    switch (channel) {
      case CHANNELS.getState:
        return this.state;
      case CHANNELS.switchMode: {
        const req = parseSwitchRequest(arg);
        return req ? this.switchMode(req) : { ok: false, error: "Unknown way to start" };
      }
      case CHANNELS.openOfflineDemo:
        return this.openOfflineDemo();
      case CHANNELS.retryHosted:
        return this.retryHosted();
      case CHANNELS.showFirstRun:
        await this.showFirstRun();
        return { ok: true };
      default:
        throw new Error(`unknown bridge channel ${channel}`);
    }
  }

  /** on quit: stop the server (and wait for it) */
  async quit(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.stopServer();
  }
}
