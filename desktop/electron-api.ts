/**
 * The small slice of Electron the desktop logic needs, as plain interfaces. `electron-adapter.ts`
 * implements them with Electron (main process only); the unit tests implement them with fakes,
 * and the end-to-end tests with Node's child_process and a Playwright page. Nothing outside
 * `electron-adapter.ts`, `main.ts` and `preload.ts` imports "electron".
 */

/** a server process: Electron's UtilityProcess, or a Node ChildProcess in tests */
export interface ServerChild {
  readonly pid: number | undefined;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null) => void): void;
  /** lines the process writes to stdout/stderr (for the failure message) */
  onOutput(listener: (line: string) => void): void;
  kill(): void;
}

export interface ForkOptions {
  env: Record<string, string>;
  cwd: string;
  serviceName: string;
  /** Node flags of the server process (server/config/node-flags.ts) */
  execArgv: readonly string[];
}

export type ForkServer = (modulePath: string, args: string[], options: ForkOptions) => ServerChild;

/** what the window shows: a URL of the app (or the hosted stack), or one of the desktop's own pages */
export interface AppWindow {
  loadURL(url: string): Promise<void>;
  /** a page of build/desktop/pages with a query string */
  loadPage(page: DesktopPageName, query?: Record<string, string>): Promise<void>;
  currentURL(): string;
  /** runs a read-only expression in the page (main world) and returns its JSON value */
  evaluate(expression: string): Promise<unknown>;
  isDestroyed(): boolean;
}

export type DesktopPageName = "splash" | "first-run" | "notice";

/** an HTTP answer, reduced to what the office-hours probe reads */
export interface ProbeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type HttpGet = (url: string, opts: { timeoutMs: number }) => Promise<ProbeResponse>;

/** one entry of the application menu, as data (the adapter builds Electron's Menu from it) */
export interface MenuItemSpec {
  label?: string;
  /** dispatched to the controller when clicked (see menu.ts) */
  id?: string;
  type?: "normal" | "separator" | "submenu" | "radio" | "checkbox";
  checked?: boolean;
  enabled?: boolean;
  accelerator?: string;
  /** an Electron role (copy, paste, quit, reload, toggleDevTools, ...) */
  role?: string;
  submenu?: MenuItemSpec[];
}

export interface Shell {
  openExternal(url: string): Promise<void>;
}

export interface Settings {
  read(): string | null;
  write(text: string): void;
}

/** hooks a window's web contents exposes to the security module */
export interface GuardableContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: "deny" | "allow" }): void;
  onWillNavigate(listener: (url: string, prevent: () => void) => void): void;
  onWillRedirect(listener: (url: string, prevent: () => void) => void): void;
  onWillAttachWebview(listener: (prevent: () => void) => void): void;
  setPermissionRequestHandler(
    handler: (permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: (permission: string) => boolean): void;
}
