import { expect, test, type Page } from "@playwright/test";
import { navFor } from "../../app/lib/navigation.server";
import { PERSONAS } from "../../server/auth/personas";
import { signInAs } from "./support";

/**
 * Issue 14, keyboard: every action of a view can be reached with Tab and shows where the focus is.
 * Each persona's home and every view of the navigation (once, for the first persona that has it) are
 * walked with Tab from the top of the page to its end: every link, button, field, summary and
 * focusable drawing on the page must receive the focus (one radio button per group: arrows move
 * within it), and each must look different focused (its outline or shadow differs from how it looks
 * unfocused). Then the main action of the views
 * where one thing is done is carried out with the keyboard alone.
 */

const TABBABLE = [
  "a[href]",
  "button:not([disabled])",
  'input:not([type="hidden"]):not([disabled])',
  "select:not([disabled])",
  "textarea:not([disabled])",
  "summary",
  '[tabindex]:not([tabindex="-1"])',
].join(", ");

interface Stop {
  i: number;
  what: string;
  group: string | null;
  outline: string;
  shadow: string;
}

/** the elements a keyboard user must reach, marked with data-kbd, and how each looks unfocused */
async function tabbable(page: Page): Promise<Stop[]> {
  return page.evaluate((selector) => {
    (document.activeElement as HTMLElement | null)?.blur?.();
    const out: Stop[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(selector)) {
      const box = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      const closed = el.closest("details:not([open])");
      if (closed && el.parentElement !== closed) continue;
      if ((box.width === 0 && box.height === 0) || s.visibility === "hidden" || el.closest("[inert]"))
        continue;
      el.dataset.kbd = String(out.length);
      const name = (el.getAttribute("aria-label") ?? el.textContent ?? el.getAttribute("name") ?? "").trim();
      out.push({
        i: out.length,
        what: `${el.tagName.toLowerCase()} "${name.slice(0, 40)}"`,
        group: el instanceof HTMLInputElement && el.type === "radio" ? `radio:${el.name}` : null,
        outline: `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`,
        shadow: s.boxShadow,
      });
    }
    return out;
  }, TABBABLE);
}

interface Focused {
  kbd: string | null;
  what: string;
  outline: string;
  visibleOutline: boolean;
  shadow: string;
}

/** records, in the page, every element that receives the focus and how it looks focused */
async function recordFocus(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log: Focused[] = [];
    (window as unknown as { __focusLog: Focused[] }).__focusLog = log;
    document.addEventListener("focusin", (e) => {
      const el = e.target as HTMLElement;
      const s = getComputedStyle(el);
      log.push({
        kbd: el.dataset?.kbd ?? null,
        what: `${el.tagName.toLowerCase()}.${typeof el.className === "string" ? el.className : ""}`,
        outline: `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`,
        visibleOutline: s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0,
        shadow: s.boxShadow,
      });
    });
  });
}

/** Tab from the top of the page to its end; what was not reached and what showed no focus */
async function walk(page: Page, path: string): Promise<{ stops: number; problems: string[] }> {
  await page.goto(path);
  const stops = await tabbable(page);
  await recordFocus(page);
  const start = page.url();
  // a date field takes three presses (day, month, year); a few more for scrolling boxes and to leave the page
  const dates = await page.locator('main input[type="date"]').count();
  for (let k = 0; k < stops.length + 3 * dates + 10; k++) await page.keyboard.press("Tab");
  const problems: string[] = [];
  if (page.url() !== start) problems.push(`${path}: Tab navigated to ${page.url()}`);
  const log = await page.evaluate(() => (window as unknown as { __focusLog: Focused[] }).__focusLog);
  const reached = new Set<string>();
  let previous: string | null = null;
  for (const f of log) {
    const key = f.kbd ?? `extra:${f.what}`;
    if (key === previous) continue; // the parts of a date field
    previous = key;
    if (reached.has(key)) break; // wrapped round to the top
    reached.add(key);
    const stop = f.kbd !== null ? stops[Number(f.kbd)] : undefined;
    const visible = stop
      ? (f.visibleOutline && f.outline !== stop.outline) || f.shadow !== stop.shadow
      : f.visibleOutline || f.shadow !== "none";
    if (!visible) problems.push(`${path}: no visible focus on ${stop?.what ?? f.what}`);
  }
  const groups = new Set(
    stops.filter((s) => s.group && reached.has(String(s.i))).map((s) => s.group as string),
  );
  for (const s of stops)
    if (!reached.has(String(s.i)) && !(s.group && groups.has(s.group)))
      problems.push(`${path}: never reached with Tab: ${s.what}`);
  return { stops: stops.length, problems };
}

/** Tab until the focused element matches, as a keyboard user would */
async function tabTo(page: Page, selector: string, limit = 150): Promise<void> {
  for (let k = 0; k < limit; k++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
  }
  throw new Error(`${selector} not reached within ${limit} Tab presses`);
}

/**
 * Every persona's home, and each view of the navigation once, for the first persona that has it (a
 * view renders the same controls for every persona allowed to open it; Tab walks take a while).
 */
const walked = new Set<string>();
const plan = PERSONAS.map((p) => {
  const views = ["/"];
  for (const n of navFor(p.roles))
    if (!walked.has(n.to) && n.to !== "/") {
      walked.add(n.to);
      views.push(n.to);
    }
  return { username: p.username, views };
});

for (const persona of plan) {
  test(`keyboard: every action of ${persona.username}'s views is reached with Tab and shows its focus`, async ({
    page,
  }) => {
    test.setTimeout(60_000 + 20_000 * persona.views.length);
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs(page, persona.username, "/");
    const problems: string[] = [];
    let total = 0;
    for (const path of persona.views) {
      const r = await walk(page, path);
      total += r.stops;
      problems.push(...r.problems);
    }
    expect(problems, problems.join("\n")).toEqual([]);
    expect(total, "the walk reached the views' controls").toBeGreaterThan(persona.views.length * 5);
  });
}

test("keyboard alone: search the catalogue and open a dataset", async ({ page }) => {
  await signInAs(page, "researcher", "/catalogue");
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur?.());
  await tabTo(page, '[data-testid="catalogue-search"]');
  await page.keyboard.type("diabetes");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/[?&]q=diabetes/);
  await expect(page.locator("main")).toContainText(/diabetes/i);
  await tabTo(page, 'main a[href^="/catalogue/"]');
  const href = await page.evaluate(() => document.activeElement?.getAttribute("href"));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${href!.split("?")[0]}`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
});

test("keyboard alone: open a node of the graph from its text alternative", async ({ page }) => {
  test.setTimeout(180_000);
  await signInAs(page, "researcher", "/graph");
  await expect(page.getByTestId("graph-canvas")).toHaveAttribute("data-ready", "true");
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur?.());
  await tabTo(page, '[data-testid="graph-node-list"] > summary');
  await page.keyboard.press("Enter");
  // the list is drawn once opened: wait for it as a reader would
  await expect(page.getByTestId("graph-node-list-item").first()).toBeVisible();
  await expect(page.locator('[data-testid="graph-node-list"] > summary')).toBeFocused();
  await tabTo(page, '[data-testid="graph-node-list-item"]', 5);
  const caption = await page.evaluate(() => document.activeElement?.textContent ?? "");
  const id = await page.evaluate(() => document.activeElement?.getAttribute("data-node-id"));
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("inspector-id")).toHaveText(id!);
  await expect(page.getByTestId("inspector-title")).toHaveText(caption);
  // the focus moved to the inspector: its actions are the next Tab stops
  await expect(page.getByTestId("inspector-title")).toBeFocused();
  await tabTo(page, '[data-testid="inspector-expand"]', 5);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("graph-notice")).toContainText(/Added|already drawn/, { timeout: 45_000 });
});

test("keyboard alone: ask a question", async ({ page }) => {
  await signInAs(page, "researcher", "/ask");
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur?.());
  await tabTo(page, '[data-testid="question"]');
  await page.keyboard.type(
    "Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?",
  );
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("answer-table")).toBeVisible();
  await expect(page.getByTestId("template-id")).toHaveText("pharmacovigilance");
});
