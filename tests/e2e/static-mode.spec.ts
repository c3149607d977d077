import { expect, test } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../desktop/ports";

/** `APP_MODE=static node build/server/index.js` in Chromium: persona per tab, the banner, a refused change. */

let server: ChildProcess;
let base: string;
let dataDir: string;

test.beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(path.join(tmpdir(), "hub-static-e2e-"));
  server = spawn(process.execPath, ["build/server/index.js"], {
    env: {
      ...process.env,
      APP_MODE: "static",
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("static server did not report ready")), 60_000);
    server.on("message", (m: { type?: string }) => {
      if (m?.type === "ready") {
        clearTimeout(t);
        resolve();
      }
    });
    server.on("exit", (code) => reject(new Error(`static server exited (${code})`)));
  });
});

test.afterAll(async () => {
  server?.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

test("two tabs, two personas; navigation keeps each tab's persona; a change is refused in the view", async ({
  context,
}, info) => {
  const a = await context.newPage();
  const b = await context.newPage();
  await a.goto(`${base}/`);
  await a.getByTestId("persona-clinic").click();
  await b.goto(`${base}/`);
  await b.getByTestId("persona-researcher").click();
  await expect(a.getByTestId("whoami")).toContainText("Dr. Anna Weber");
  await expect(b.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");

  // navigating in one tab does not change the other's persona (no shared cookie decides it); the
  // link carries the persona's basename and is followed in the page (the window keeps its state)
  await a.evaluate(() => ((window as unknown as { hubMark: number }).hubMark = 7));
  await a.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Catalogue" }).click();
  await expect(a).toHaveURL(`${base}/as/clinic/catalogue`);
  await expect(a.getByTestId("catalogue-results")).toBeVisible();
  expect(await a.evaluate(() => (window as unknown as { hubMark?: number }).hubMark)).toBe(7);
  await b.reload();
  await expect(b.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");
  await expect(a.getByTestId("whoami")).toContainText("Dr. Anna Weber");
  await expect(a.getByTestId("demo-banner")).toContainText("Demonstration — changes are not saved");
  await a.screenshot({ path: info.outputPath("static-1-catalogue-clinic.png") });

  await a.goto(`${base}/as/clinic/catalogue/new`);
  await a.getByTestId("publish-id").fill("demo-dataset");
  await a.getByTestId("publish-title").fill("A dataset that is never saved");
  await a.getByTestId("publish-submit").click();
  await expect(a.getByTestId("publish-error")).toHaveText("This is a demonstration: changes are not saved");
  await a.getByTestId("publish-error").scrollIntoViewIfNeeded();
  await a.screenshot({ path: info.outputPath("static-2-refused.png") });

  const api = await a.request.get(`${base}/api/catalog`);
  expect(api.status()).toBe(404);
});
