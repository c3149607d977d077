import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { navFor } from "../../app/lib/navigation.server";
import { PERSONAS } from "../../server/auth/personas";
import { shapeOf } from "../../scripts/static-mode/walk";
import { signInAs } from "./support";

/**
 * Issue 40, phones: at 390 px every view of every persona fits the screen (no sideways scrolling of
 * the page: a wide table scrolls inside its own box), the navigation waits behind a Menu button and
 * the page's title is near the top. The views: every navigation entry of the persona and one page of
 * every detail-page shape the static-mode walk reached for them (as in accessibility.spec.ts, but per
 * persona: what a view shows, and so its width, depends on who looks).
 */
const PHONE = { width: 390, height: 844 };

interface WalkedView {
  persona: string;
  path: string;
  status: number;
}
const walked = (
  JSON.parse(readFileSync("fixtures/static/views.json", "utf8")) as { views: WalkedView[] }
).views.filter((v) => v.status === 200 && !v.path.includes(".data") && !/\.csv/.test(v.path));

function viewsOf(username: string, roles: readonly string[]): string[] {
  const shapes = new Set<string>(["/"]);
  const out = ["/"];
  const admit = (path: string) => {
    const shape = shapeOf(path);
    if (shapes.has(shape)) return;
    shapes.add(shape);
    out.push(path);
  };
  for (const i of navFor(roles as never)) admit(i.to);
  for (const v of walked) if (v.persona === username) admit(v.path.split("?")[0]);
  return out;
}

/** a detail page of today's data, reached through the first link of its list (ids depend on the day) */
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

/** the page's width against the screen's, and the widest elements that stick out (for the message) */
async function overflow(
  page: Page,
): Promise<{ scrollWidth: number; innerWidth: number; culprits: string[] }> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    const culprits: string[] = [];
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const r = el.getBoundingClientRect();
      if (r.right <= innerWidth + 0.5 || r.width === 0) continue;
      // only the outermost element that sticks out, unless its own box scrolls (then it is contained)
      let p = el.parentElement;
      let inside = false;
      while (p && p !== document.body) {
        const pr = p.getBoundingClientRect();
        const ox = getComputedStyle(p).overflowX;
        if (pr.right > innerWidth + 0.5 || ox === "auto" || ox === "scroll" || ox === "hidden") {
          inside = true;
          break;
        }
        p = p.parentElement;
      }
      if (!inside && culprits.length < 4)
        culprits.push(
          `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""} right=${Math.round(r.right)}`,
        );
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, culprits };
  });
}

for (const persona of PERSONAS) {
  const views = viewsOf(persona.username, persona.roles);
  test(`phone: every view of ${persona.username} fits 390 px without sideways scrolling`, async ({
    page,
  }) => {
    test.setTimeout(8_000 * views.length + 60_000);
    await page.setViewportSize(PHONE);
    await signInAs(page, persona.username, "/");
    const problems: string[] = [];
    for (const walkedPath of views) {
      const path = await current(page, walkedPath);
      const res = await page.goto(path);
      if (!res || res.status() >= 400) {
        problems.push(`${path}: HTTP ${res?.status()}`);
        continue;
      }
      const o = await overflow(page);
      if (o.scrollWidth > o.innerWidth)
        problems.push(`${path}: ${o.scrollWidth} px wide (${o.culprits.join(", ")})`);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
}

test("phone: the navigation waits behind the Menu button, grouped by task, and the title is near the top", async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await signInAs(page, "admin", "/");
  const nav = page.getByRole("navigation", { name: "Main" });
  const menu = nav.getByRole("button", { name: "Menu" });
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav.getByRole("link", { name: "Catalogue" })).toBeHidden();
  const title = await page.getByRole("heading", { level: 1 }).boundingBox();
  expect(title!.y).toBeLessThan(260);
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  for (const group of ["Explore", "Exchange", "Govern", "Operate"])
    await expect(page.getByTestId(`nav-group-${group}`)).toBeVisible();
  await nav.getByRole("link", { name: "Catalogue" }).click();
  await page.waitForURL(/\/catalogue$/);
  // the menu closes again after a navigation
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav.getByRole("link", { name: "Catalogue" })).toBeHidden();
});

test("desktop: the navigation is grouped by task, each group folds, no Menu button", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAs(page, "admin", "/");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("button", { name: "Menu" })).toBeHidden();
  const operate = page.getByTestId("nav-group-Operate");
  await expect(operate.getByRole("link", { name: "Components" })).toBeVisible();
  await operate.locator("summary").click();
  await expect(operate.getByRole("link", { name: "Components" })).toBeHidden();
  await operate.locator("summary").click();
  await expect(operate.getByRole("link", { name: "Components" })).toBeVisible();
});

test("phone: the public landing page fits 390 px", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await page.goto("/");
  const o = await overflow(page);
  expect(o.scrollWidth, o.culprits.join(", ")).toBeLessThanOrEqual(o.innerWidth);
});
