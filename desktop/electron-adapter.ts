import {
  Menu,
  net,
  utilityProcess,
  type BrowserWindow,
  type MenuItemConstructorOptions,
  type WebContents,
} from "electron";
import { mkdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import path from "node:path";
import type {
  AppWindow,
  DesktopPageName,
  ForkServer,
  GuardableContents,
  HttpGet,
  MenuItemSpec,
  ServerChild,
  Settings,
} from "./electron-api";

/** The interfaces of electron-api.ts, implemented with Electron (main process). */

export const electronFork: ForkServer = (modulePath, args, options) => {
  const child = utilityProcess.fork(modulePath, args, {
    env: options.env,
    cwd: options.cwd,
    serviceName: options.serviceName,
    execArgv: [...options.execArgv],
    stdio: "pipe",
  });
  const outputListeners: ((line: string) => void)[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split(/\r?\n/))
      if (line.trim()) outputListeners.forEach((l) => l(line));
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const server: ServerChild = {
    get pid() {
      return child.pid;
    },
    onMessage: (l) => child.on("message", l),
    onExit: (l) => child.on("exit", (code) => l(code)),
    onOutput: (l) => outputListeners.push(l),
    kill: () => {
      child.kill();
    },
  };
  return server;
};

export function windowAdapter(win: BrowserWindow, pagesDir: string): AppWindow {
  return {
    loadURL: (url) => win.loadURL(url),
    loadPage: (page: DesktopPageName, query?: Record<string, string>) =>
      win.loadFile(path.join(pagesDir, `${page}.html`), { query }),
    currentURL: () => win.webContents.getURL(),
    evaluate: (expression) => win.webContents.executeJavaScript(expression, false) as Promise<unknown>,
    isDestroyed: () => win.isDestroyed(),
  };
}

export function contentsAdapter(contents: WebContents): GuardableContents {
  return {
    setWindowOpenHandler: (handler) =>
      contents.setWindowOpenHandler((details) => handler({ url: details.url })),
    onWillNavigate: (l) => contents.on("will-navigate", (event, url) => l(url, () => event.preventDefault())),
    onWillRedirect: (l) => contents.on("will-redirect", (event, url) => l(url, () => event.preventDefault())),
    onWillAttachWebview: (l) =>
      contents.on("will-attach-webview", (event) => l(() => event.preventDefault())),
    setPermissionRequestHandler: (handler) =>
      contents.session.setPermissionRequestHandler((_contents, permission, callback) =>
        handler(permission, callback),
      ),
    setPermissionCheckHandler: (handler) =>
      contents.session.setPermissionCheckHandler((_contents, permission) => handler(permission)),
  };
}

/** settings.json under the user-data folder, written atomically */
export function fileSettings(file: string): Settings {
  return {
    read: () => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return null;
      }
    },
    write: (text) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(`${file}.tmp`, text);
      renameSync(`${file}.tmp`, file);
    },
  };
}

/** GET through Chromium's network stack (system proxy settings apply), redirects not followed */
export const electronGet: HttpGet = async (url, { timeoutMs }) => {
  const res = await net.fetch(url, {
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
    headers: { Accept: "text/html,application/json" },
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  return { status: res.status, headers, body: (await res.text()).slice(0, 64 * 1024) };
};

export function buildMenu(spec: MenuItemSpec[], onClick: (id: string) => void): Menu {
  const convert = (s: MenuItemSpec): MenuItemConstructorOptions => ({
    label: s.label,
    type: s.type,
    checked: s.checked,
    enabled: s.enabled,
    accelerator: s.accelerator,
    role: s.role as MenuItemConstructorOptions["role"],
    submenu: s.submenu?.map(convert),
    click: s.id ? () => onClick(s.id!) : undefined,
  });
  return Menu.buildFromTemplate(spec.map(convert));
}
