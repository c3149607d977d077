import { expect, test, type Page } from "@playwright/test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BRIDGE_NAME, CHANNELS } from "../../desktop/bridge";
import { DesktopController } from "../../desktop/controller";
import type { AppWindow, Settings } from "../../desktop/electron-api";
import { nodeFork } from "../../desktop/node-fork";
import { fetchGet, probeHosted } from "../../desktop/office-hours";
import { freePort } from "../../desktop/ports";
import { startHubServer, type RunningHubServer } from "../../desktop/server-process";
import { navigationDecision } from "../../desktop/url-guard";

/**
 * The desktop app without Electron: the real controller (desktop/controller.ts) drives a Chromium
 * page as its window, starts build/server/index.js the desktop's way (a forked process on
 * 127.0.0.1 and a free port, the readiness message), shows the desktop's own pages from
 * build/desktop/pages with the bridge wired as the preload wires it, and guards navigation with
 * the desktop's URL guard. The three ways to start, in turn.
 */

const appRoot = process.cwd();
const pagesDir = path.join(appRoot, "build", "desktop", "pages");
const pagesPrefix = pathToFileURL(pagesDir).href + "/";
let userData: string;
const servers: RunningHubServer[] = [];

test.beforeAll(() => {
  if (!existsSync(path.join(pagesDir, "notice.html")))
    execFileSync(process.execPath, ["desktop/build.mjs"], { stdio: "inherit" });
  userData = mkdtempSync(path.join(tmpdir(), "hub-desktop-e2e-"));
});
test.afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(userData, { recursive: true, force: true });
});

function memorySettings(): Settings {
  let text: string | null = null;
  return { read: () => text, write: (t) => void (text = t) };
}

/** the controller with a Playwright page as its window (what electron-adapter.ts does with a BrowserWindow) */
async function desktop(page: Page) {
  const windowOnPage: AppWindow = {
    loadURL: async (url) => void (await page.goto(url)),
    loadPage: async (name, query = {}) => {
      const q = new URLSearchParams(query).toString();
      await page.goto(`${pagesPrefix}${name}.html${q ? `?${q}` : ""}`);
    },
    currentURL: () => page.url(),
    evaluate: (expression) => page.evaluate(expression),
    isDestroyed: () => page.isClosed(),
  };
  const controller = new DesktopController({
    window: windowOnPage,
    settings: memorySettings(),
    pagesPrefix,
    startServer: async (mode) => {
      const s = await startHubServer(
        { fork: nodeFork, freePort },
        { mode, paths: { appRoot, userData }, inheritEnv: process.env, timeoutMs: 90_000 },
      );
      servers.push(s);
      return s;
    },
    probe: (hostedUrl) => probeHosted(fetchGet, hostedUrl),
  });
  // the preload's bridge: window.hubDesktop.* → the controller (main.ts checks the sender the same way)
  await page.exposeBinding("__hubInvoke", (_source, channel: string, arg: unknown) =>
    controller.invoke(channel, arg),
  );
  await page.addInitScript(
    ({ name, channels }) => {
      const invoke = (window as unknown as { __hubInvoke: (c: string, a?: unknown) => Promise<unknown> })
        .__hubInvoke;
      (window as unknown as Record<string, unknown>)[name] = {
        getState: () => invoke(channels.getState),
        switchMode: (r: unknown) => invoke(channels.switchMode, r),
        openOfflineDemo: () => invoke(channels.openOfflineDemo),
        retryHosted: () => invoke(channels.retryHosted),
        showFirstRun: () => invoke(channels.showFirstRun),
      };
    },
    { name: BRIDGE_NAME, channels: CHANNELS },
  );
  // will-navigate: the desktop's URL guard on every navigation of the window
  const refused: string[] = [];
  await page.route("**/*", (route) => {
    const req = route.request();
    if (
      req.isNavigationRequest() &&
      req.frame() === page.mainFrame() &&
      navigationDecision(req.url(), controller.guardPolicy()) !== "allow"
    ) {
      refused.push(req.url());
      return route.abort("blockedbyclient");
    }
    return route.continue();
  });
  // did-finish-load: the trust-center landing
  page.on("load", () => void controller.onPageLoaded(page.url()).catch(() => undefined));
  return { controller, refused };
}

test("first run → offline demo: persona chooser, a trust-center operator lands on the trust center view", async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  const { controller, refused } = await desktop(page);
  await controller.start();
  await expect(page.getByTestId("first-run")).toBeVisible();
  await page.screenshot({ path: info.outputPath("desktop-1-first-run.png") });

  await page.getByTestId("start-offline").click();
  // the public landing page (issue 40), with the personas of the offline demo to pick from
  await expect(page.getByTestId("persona-picker")).toBeVisible({ timeout: 60_000 });
  expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  expect(controller.state).toMatchObject({ mode: "offline", status: "running" });

  await page.getByTestId("persona-trustcenter").click();
  await expect(page).toHaveURL(/\/as\/trustcenter\/trust-center$/);
  await page.screenshot({ path: info.outputPath("desktop-2-offline-trust-center.png") });

  await page.goto(new URL("/as/clinic/catalogue", page.url()).href);
  await expect(page.getByTestId("demo-banner")).toBeVisible();
  await expect(page.getByTestId("whoami")).toContainText("Dr. Anna Weber");
  await page.screenshot({ path: info.outputPath("desktop-3-offline-catalogue.png") });

  // the guard keeps the window on the app: a foreign page is refused
  await page.goto("https://example.org/").catch(() => undefined);
  expect(refused).toContain("https://example.org/");
});

test("local: the live server with the embedded sign-in; menu switches", async ({ page }, info) => {
  test.setTimeout(180_000);
  const { controller, refused } = await desktop(page);
  await controller.onMenu("mode:local");
  await expect(page.getByTestId("landing")).toBeVisible({ timeout: 90_000 });
  await page.getByTestId("persona-clinic").click();
  await page.locator('input[name="username"]').fill("clinic");
  await page.locator('input[name="password"]').fill("clinic");
  await page.locator('form button[type="submit"], form input[type="submit"]').first().click();
  await expect(page.getByTestId("whoami")).toContainText("Dr. Anna Weber");
  expect(controller.state).toMatchObject({ mode: "local", status: "running" });
  expect(refused).toEqual([]); // the embedded identity provider is on the app's own origin
  await page.screenshot({ path: info.outputPath("desktop-4-local.png") });

  await controller.onMenu("mode:offline");
  await expect(page.getByTestId("persona-picker")).toBeVisible({ timeout: 60_000 });
});

test("connected: the hosted stack when open; outside its office hours the notice, and the offline demo from its button", async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  const start = (extra: Record<string, string>) =>
    startHubServer(
      {
        freePort,
        fork: (m, a, o) => nodeFork(m, a, { ...o, env: { ...o.env, SEED_PATIENTS: "10", ...extra } }),
      },
      {
        mode: "local",
        paths: { appRoot, userData: mkdtempSync(path.join(userData, "hosted-")) },
        inheritEnv: process.env,
        timeoutMs: 90_000,
      },
    ).then((s) => (servers.push(s), s));
  const berlinDay = (d: number) =>
    new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(
      new Date(Date.now() + d * 86_400_000),
    );
  const [open, closed] = await Promise.all([
    start({}),
    start({
      OFFICE_HOURS: "Mon-Sun 00:00-24:00 Europe/Berlin",
      OFFICE_HOLDS: [-1, 0, 1].map(berlinDay).join(","),
    }),
  ]);

  const { controller } = await desktop(page);
  await controller.start();
  await page.getByTestId("hosted-url").fill(open.url);
  await page.getByTestId("start-connected").click();
  await expect(page.getByTestId("landing")).toBeVisible({ timeout: 60_000 });
  expect(page.url().startsWith(open.url)).toBe(true);
  expect(controller.guardPolicy().appOrigins).toContain(open.url);
  await page.screenshot({ path: info.outputPath("desktop-5-connected-open.png") });

  await controller.switchMode({ mode: "connected", hostedUrl: closed.url });
  await expect(page.getByTestId("desktop-notice-closed")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("next-opening")).toContainText("It opens again on");
  await expect(page.getByTestId("desktop-notice-closed")).toContainText("on hold today");
  await page.screenshot({ path: info.outputPath("desktop-6-connected-closed.png") });

  await page.getByTestId("open-offline-demo").click();
  await expect(page.getByTestId("persona-picker")).toBeVisible({ timeout: 60_000 });
  expect(controller.state.mode).toBe("offline");
  await page.screenshot({ path: info.outputPath("desktop-7-offline-from-notice.png") });
});
