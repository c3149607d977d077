import { expect, test, type Page, type Response } from "@playwright/test";
import { navFor } from "../../app/lib/navigation.server";
import { PERSONAS } from "../../server/auth/personas";
import { signInAs } from "./support";

/**
 * Issue 40, "code that a page does not use not shipped to it" (decision 0064). Routes imported
 * server modules for their loaders and actions; the browser build keeps a module whose top level
 * does work (a cache, a table made at load), so those pages shipped the error model with its
 * lru-cache (17 pages), the synthetic terminology (the graph and the patient list) and the personas
 * (every page, through the root). Each walk opens every navigation entry of a persona and checks:
 * - no script it loads holds a server module (one string of each, found in no view's own code);
 * - the scripts the document names (module preloads: what runs before the page is interactive),
 *   beside the framework's chunk (React, React Router, Remix: the same on every page), stay within
 *   a budget. Before the change: 114 KB for the graph, 70 KB for the patient list, 56 KB for an
 *   application; after: at most 36 KB.
 */
const SERVER_ONLY = [
  { marker: "hub.bodyTooLarge", module: "server/http (the error model and its lru-cache caches)" },
  { marker: "Diabetes mellitus type 2", module: "server/graph/synthetic (the synthetic terminology)" },
  { marker: "did:web:alpha-klinik.de", module: "server/auth/personas (the demonstration organisations)" },
];
const OWN_SCRIPT_BUDGET = 40_000;
const refusedByPolicy: string[] = [];

/**
 * every script the page loads, by URL, with its text; and every script the page's Content-Security-Policy
 * refused (Chromium says so on the console), which must be none: a document allows its inline scripts
 * by their hashes (decision 0073), and a refused one is a page that never hydrates
 */
function recordScripts(page: Page): Map<string, string> {
  const scripts = new Map<string, string>();
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) refusedByPolicy.push(`${page.url()}: ${m.text()}`);
  });
  page.on("response", (res: Response) => {
    if (res.request().resourceType() !== "script" || res.status() !== 200) return;
    void res
      .text()
      .then((t) => scripts.set(new URL(res.url()).pathname, t))
      .catch(() => undefined);
  });
  return scripts;
}

/**
 * the document's module preloads (read from the HTML as sent: React removes them once the page is
 * hydrated) that are not the framework's entry and its chunks
 */
async function ownPreloads(page: Page, path: string): Promise<string[]> {
  const html = await (await page.request.get(path)).text();
  const framework = await page.evaluate(() => {
    const m = (window as unknown as { __remixManifest: { entry: { module: string; imports: string[] } } })
      .__remixManifest;
    return [m.entry.module, ...m.entry.imports];
  });
  return [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)]
    .map((m) => m[1])
    .filter((p) => !framework.includes(p));
}

async function checkView(page: Page, scripts: Map<string, string>, path: string) {
  const res = await page.goto(path);
  expect(res?.status(), path).toBeLessThan(400);
  await page.waitForLoadState("networkidle");
  // hydrated: React Router's client router runs (its entry is one of the inline scripts)
  expect(await page.evaluate(() => "__remixRouter" in window), `${path}: hydrated`).toBe(true);
  const preloads = await ownPreloads(page, path);
  expect(preloads.length, `${path}: its module preloads`).toBeGreaterThan(0);
  for (const p of preloads) if (!scripts.has(p)) scripts.set(p, await (await page.request.get(p)).text());
  const own = preloads.reduce((sum, p) => sum + (scripts.get(p)?.length ?? 0), 0);
  expect(own, `${path}: its own scripts before hydration (${preloads.join(", ")})`).toBeLessThanOrEqual(
    OWN_SCRIPT_BUDGET,
  );
  return own;
}

function expectNoServerModules(scripts: Map<string, string>, where: string) {
  expect(refusedByPolicy, `${where}: scripts refused by the page's CSP`).toEqual([]);
  for (const { marker, module } of SERVER_ONLY) {
    const holders = [...scripts].filter(([, text]) => text.includes(marker)).map(([url]) => url);
    expect(holders, `${where}: scripts holding ${module}`).toEqual([]);
  }
}

test("the public pages ship no server module", async ({ page }) => {
  const scripts = recordScripts(page);
  for (const path of ["/", "/auth/signin", "/information", "/register"]) await checkView(page, scripts, path);
  expectNoServerModules(scripts, "public pages");
});

for (const persona of PERSONAS.filter((p, i) => i === PERSONAS.findIndex((o) => o.roles[0] === p.roles[0]))) {
  test(`${persona.username}: every view ships only its own code, within the budget`, async ({ page }) => {
    test.setTimeout(180_000);
    const scripts = recordScripts(page);
    await signInAs(page, persona.username);
    const sizes: string[] = [];
    for (const path of ["/", ...new Set(navFor(persona.roles).map((i) => i.to))]) {
      sizes.push(`${path} ${await checkView(page, scripts, path)}`);
    }
    expectNoServerModules(scripts, persona.username);
    test.info().annotations.push({ type: "own script bytes", description: sizes.join("; ") });
  });
}

test("the graph explorer loads its drawing engine after the page, not with it", async ({ page }) => {
  const scripts = recordScripts(page);
  await signInAs(page, "researcher", "/graph");
  const preloads = await ownPreloads(page, "/graph");
  expect(preloads.some((p) => p.includes("/routes/graph._index-"))).toBe(true);
  expect(preloads.filter((p) => /\/engine-[A-Z0-9]+\.js$/.test(p))).toEqual([]);
  await expect(page.getByTestId("graph-canvas")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  expect([...scripts.keys()].filter((p) => /\/engine-[A-Z0-9]+\.js$/.test(p))).toHaveLength(1);
  expect(await page.evaluate(() => window.__hdhGraph?.nodeIds().length ?? 0)).toBeGreaterThan(0);
});
