import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { navFor } from "../../app/lib/navigation.server";
import { PERSONAS } from "../../server/auth/personas";
import { shapeOf } from "../../scripts/static-mode/walk";
import { signInAs } from "./support";

/**
 * Issue 14: every view of every persona checked with axe-core in Chromium (WCAG 2.1 A and AA rules),
 * live mode: no critical and no serious violation. Every persona's home, every navigation entry and
 * one page of every detail-page shape the static-mode walk reached (an application, a negotiation, a
 * component...), each checked once, for the first persona that has it: a view renders the same
 * markup for every persona allowed to open it, and axe takes seconds per page.
 * Keyboard reachability and visible focus of every control: keyboard.spec.ts.
 */

interface WalkedView {
  persona: string;
  path: string;
  status: number;
}
const walked = (
  JSON.parse(readFileSync("fixtures/static/views.json", "utf8")) as { views: WalkedView[] }
).views.filter((v) => v.status === 200 && !v.path.includes(".data") && !/\.csv/.test(v.path));

const checked = new Set<string>();
function viewsOf(username: string, roles: readonly string[]): string[] {
  const out = ["/"];
  const admit = (path: string) => {
    const shape = shapeOf(path);
    if (shape === "/" || checked.has(shape)) return;
    checked.add(shape);
    out.push(path);
  };
  for (const i of navFor(roles as never)) admit(i.to);
  for (const v of walked) if (v.persona === username) admit(v.path.split("?")[0]);
  return out;
}

const only = process.env.AXE_PERSONAS?.split(",");
/** AXE_PERSONAS=admin AXE_PATHS=/components: a quick run of some views while fixing them */
const paths = process.env.AXE_PATHS?.split(",");
const personas = PERSONAS.map((p) => ({
  username: p.username,
  views: viewsOf(p.username, p.roles).filter((v) => !paths || paths.includes(v)),
})).filter((p) => !only || only.includes(p.username));

/**
 * A detail page of today's data: ids in the walk's record depend on the day the fixtures were
 * recorded (applications, permits), so the page is reached through the first link of its list.
 */
async function current(page: Page, path: string): Promise<string> {
  const segs = path.split("/").filter(Boolean);
  if (segs.length < 2) return path;
  const parent = `/${segs.slice(0, -1).join("/")}`;
  const res = await page.goto(parent);
  if (!res || res.status() >= 400) return path;
  const hrefs = await page
    .locator(`main a[href^="${parent}/"]`)
    .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  return hrefs.map((h) => h.split(/[?#]/)[0]).find((h) => shapeOf(h) === shapeOf(path)) ?? path;
}

async function audit(page: Page, walkedPath: string): Promise<string[]> {
  const path = await current(page, walkedPath);
  const response = await page.goto(path);
  const status = response?.status() ?? 0;
  const problems: string[] = status >= 400 ? [`${path}: HTTP ${status}`] : [];
  const t0 = Date.now();
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .options({ resultTypes: ["violations"] })
    .analyze();
  if (process.env.AXE_TIMINGS) console.log(`axe ${path} ${Date.now() - t0} ms`);
  for (const v of result.violations) {
    if (v.impact !== "critical" && v.impact !== "serious") continue;
    const targets = v.nodes
      .slice(0, 3)
      .map((n) => n.target.join(" "))
      .join(" | ");
    problems.push(`${path}: ${v.impact} ${v.id} (${v.nodes.length}×) ${targets}`);
  }
  return problems;
}

for (const persona of personas) {
  test(`axe: the views of ${persona.username} have no critical or serious violation`, async ({ page }) => {
    test.setTimeout(30_000 * persona.views.length + 60_000);
    await signInAs(page, persona.username, "/");
    const problems: string[] = [];
    for (const path of persona.views) problems.push(...(await audit(page, path)));
    expect(problems, problems.join("\n")).toEqual([]);
  });
}

// issue 40: the public pages a visitor sees before signing in, the landing page first
test("axe: the public landing page, information and register (no session) have no critical or serious violation", async ({
  page,
}) => {
  // the API reference renders 100 operations: axe takes its time over it on a shared machine
  test.setTimeout(150_000);
  const problems: string[] = [];
  for (const path of ["/", "/information", "/register", "/auth/signin", "/docs/api"])
    problems.push(...(await audit(page, path)));
  expect(problems, problems.join("\n")).toEqual([]);
});
