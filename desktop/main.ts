import { app, BrowserWindow, ipcMain, Menu, shell, type IpcMainInvokeEvent } from "electron";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CHANNELS, trustedSender } from "./bridge";
import { DesktopController } from "./controller";
import {
  buildMenu,
  contentsAdapter,
  electronFork,
  electronGet,
  fileSettings,
  windowAdapter,
} from "./electron-adapter";
import { probeHosted } from "./office-hours";
import { hardenContents, webPreferences } from "./security";
import { startHubServer } from "./server-process";
import { freePort } from "./ports";

/**
 * Electron main process: one window, the controller (controller.ts) and its wiring to Electron.
 * The server runs in a utility process (server-process.ts); data lives under userData.
 */

const here = path.dirname(fileURLToPath(import.meta.url)); // build/desktop
const pagesDir = path.join(here, "pages");
const pagesPrefix = pathToFileURL(pagesDir).href + "/";
const preloadPath = path.join(here, "preload.cjs");
/** build/ public/ fixtures/ as real files: the app folder, or its unpacked twin when packaged */
const appRoot = app.isPackaged
  ? app.getAppPath().replace(/app\.asar$/, "app.asar.unpacked")
  : app.getAppPath();
const log = (line: string) => console.log(`[desktop] ${line}`);

app.enableSandbox();
/** one instance: a second start focuses the first window */
const primary = app.requestSingleInstanceLock();
if (!primary) app.quit();

let win: BrowserWindow | null = null;
let controller: DesktopController | null = null;
let quitting = false;

// every web contents (defence in depth): no new windows, guarded navigation
app.on("web-contents-created", (_event, contents) => {
  hardenContents(
    contentsAdapter(contents),
    () => controller?.guardPolicy() ?? { appOrigins: [], idpOrigins: [], pagesPrefix },
    shell,
    log,
  );
});

app.on("second-instance", () => {
  if (win) {
    if (win.isMinimized()) win.restore();
    win.focus();
  }
});

async function createWindow() {
  win = new BrowserWindow({
    width: 1280,
    height: 860,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: "Health Dataspace Hub",
    backgroundColor: "#f5f7fa",
    webPreferences: webPreferences(preloadPath),
  });
  win.once("ready-to-show", () => win?.show());

  const c = new DesktopController({
    window: windowAdapter(win, pagesDir),
    settings: fileSettings(path.join(app.getPath("userData"), "settings.json")),
    startServer: (mode) =>
      startHubServer(
        { fork: electronFork, freePort: () => freePort() },
        { mode, paths: { appRoot, userData: app.getPath("userData") }, inheritEnv: process.env },
      ),
    probe: (hostedUrl) => probeHosted(electronGet, hostedUrl),
    discoverIssuer: async (hostedUrl) => {
      const r = await electronGet(`${hostedUrl}/api/keycloak-config`, { timeoutMs: 3000 });
      if (r.status !== 200) return undefined;
      const j = JSON.parse(r.body) as Record<string, unknown>;
      const v = j.issuer ?? j.url ?? j.authServerUrl ?? j.realmUrl;
      return typeof v === "string" ? v : undefined;
    },
    pagesPrefix,
    devTools: !app.isPackaged,
    log,
    onChange: () => Menu.setApplicationMenu(buildMenu(c.menu(), (id) => void c.onMenu(id))),
  });
  controller = c;
  Menu.setApplicationMenu(buildMenu(c.menu(), (id) => void c.onMenu(id)));

  const handle = (channel: string) =>
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, arg: unknown) => {
      const sender = event.senderFrame?.url ?? "";
      if (!trustedSender(sender, channel, { pagesPrefix, localOrigin: c.localOrigin() }))
        throw new Error("This page may not ask the desktop app for that");
      return c.invoke(channel, arg);
    });
  Object.values(CHANNELS).forEach(handle);

  win.webContents.on(
    "did-navigate",
    (_e, url, httpResponseCode) => void c.onHttpStatus(url, httpResponseCode),
  );
  // client-side navigations fetch data: a 503 from the hosted stack means it closed meanwhile
  win.webContents.session.webRequest.onCompleted((details) => {
    if (details.statusCode === 503) void c.onHttpStatus(details.url, 503);
  });
  win.webContents.on("did-finish-load", () => void c.onPageLoaded(win!.webContents.getURL()));
  win.on("closed", () => {
    win = null;
  });
  await c.start();
}

app.on("before-quit", (event) => {
  if (quitting || !controller) return;
  event.preventDefault();
  quitting = true;
  controller
    .quit()
    .catch((e: unknown) => log(`stopping the server: ${String(e)}`))
    .finally(() => app.quit());
});

app.on("window-all-closed", () => app.quit());

app.whenReady().then(
  () => (primary ? createWindow() : undefined),
  (e: unknown) => {
    log(`could not start: ${String(e)}`);
    app.quit();
  },
);
