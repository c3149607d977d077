import { expect, test, type Page } from "@playwright/test";
import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * `npm run export` served by a plain static file server (node:http: a file, or a folder's
 * index.html; query strings ignored; GET only), clicked through in Chromium.
 */

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".ico": "image/x-icon",
  ".map": "application/json",
};

function serveDir(root: string): Server {
  return createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = path.join(root, rel);
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
}

let site: string;
let server: Server;
let base: string;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  site = mkdtempSync(path.join(tmpdir(), "hub-export-"));
  const tsx = path.resolve("node_modules/tsx/dist/cli.mjs");
  const r = spawnSync(process.execPath, [tsx, "scripts/export.ts", "--out", site], {
    encoding: "utf8",
    env: { ...process.env },
    timeout: 200_000,
  });
  if (r.status !== 0) throw new Error(`export failed:\n${r.stdout}\n${r.stderr}`);
  server = serveDir(site);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((r) => server?.close(r));
  rmSync(site, { recursive: true, force: true });
});

function watch(page: Page) {
  const failures: string[] = [];
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
  });
  return failures;
}

async function clientSideMarker(page: Page) {
  await page.evaluate(() => ((window as unknown as { __stillHere: boolean }).__stillHere = true));
}
const stillSamePage = (page: Page) =>
  page.evaluate(() => (window as unknown as { __stillHere?: boolean }).__stillHere === true);

test("the exported site: choose a persona, navigate client-side between views, switch persona, refuse a change", async ({
  page,
}, info) => {
  const failures = watch(page);
  await page.goto(`${base}/`);
  await expect(page.getByTestId("persona-chooser")).toBeVisible();
  await expect(page.getByTestId("demo-banner")).toContainText("Demonstration — changes are not saved");
  await page.screenshot({ path: info.outputPath("export-1-chooser.png") });

  await page.getByTestId("persona-clinic").click();
  await expect(page).toHaveURL(`${base}/as/clinic/`);
  await expect(page.getByTestId("whoami")).toContainText("Dr. Anna Weber");
  await clientSideMarker(page);

  // client-side navigation: loader data comes from the exported .data files
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Catalogue" }).click();
  await expect(page).toHaveURL(/\/as\/clinic\/catalogue$/);
  const first = page.locator('a[href^="/as/clinic/catalogue/dataset-"]').first();
  await expect(first).toBeVisible();
  const title = (await first.innerText()).trim().split("\n")[0];
  await first.click();
  await expect(page).toHaveURL(/\/as\/clinic\/catalogue\/dataset-/);
  await expect(page.getByRole("heading", { level: 2, name: title })).toBeVisible();
  expect(await stillSamePage(page)).toBe(true);
  await page.screenshot({ path: info.outputPath("export-2-dataset.png") });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Patients" }).click();
  await expect(page.getByTestId("patients-table")).toBeVisible();
  await page.getByTestId("patient-link").first().click();
  await expect(page).toHaveURL(/\/as\/clinic\/patients\/patient-/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Knowledge graph" }).click();
  await expect(page.getByTestId("graph-page")).toBeVisible();
  await expect(page.locator("canvas").first()).toBeVisible();
  // the drawing, loaded after the page from its recorded fetcher answer (decision 0027)
  await expect(page.getByTestId("graph-canvas")).toHaveAttribute("data-ready", "true");
  await expect(page.getByTestId("graph-node-list").locator("summary")).not.toContainText(": 0 nodes");
  expect(await stillSamePage(page)).toBe(true);
  await page.screenshot({ path: info.outputPath("export-3-graph.png") });

  // a change is refused in the page: there is no server behind an export
  await page.goto(`${base}/as/clinic/catalogue/new`);
  await page.getByTestId("publish-id").fill("demo-dataset");
  await page.getByTestId("publish-title").fill("A dataset that is never saved");
  await page.getByTestId("publish-submit").click();
  await expect(page.getByTestId("demo-write-refused")).toHaveText(
    "This is a demonstration: changes are not saved",
  );

  // switch persona: the same section as another persona
  await page.goto(`${base}/as/clinic/catalogue`);
  await page.getByTestId("persona-switcher").locator("summary").click();
  await page.getByTestId("switch-researcher").click();
  await expect(page).toHaveURL(`${base}/as/researcher/catalogue`);
  await expect(page.getByTestId("whoami")).toContainText("Dr. Lukas Schmidt");

  // a patient is sent to their own record (the exported redirect)
  await page.goto(`${base}/as/patient1/patients`);
  await expect(page).toHaveURL(/\/as\/patient1\/my-record\/?$/);
  await page.screenshot({ path: info.outputPath("export-4-my-record.png") });

  expect(failures).toEqual([]);
});

test("the export's fixtures and assets are there for any static host", async ({ request }) => {
  for (const p of [
    "/fixtures/static/catalogue/list.json",
    "/fixtures/static/views.json",
    "/favicon.ico",
    "/as/clinic/__manifest.json",
    "/as/clinic/catalogue.data",
  ]) {
    expect((await request.get(`${base}${p}`)).status(), p).toBe(200);
  }
});
