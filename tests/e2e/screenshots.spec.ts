import { expect, test } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Screenshots of each persona's home, the graph explorer, the activity report, the trust center and
 * My record (issue 14), kept with the test artefacts in test-results/screenshots/<set>/ for a person to
 * look at. `npm test` writes the "after" set; SCREENSHOT_SET=before wrote the baseline from main.
 */
const SET = process.env.SCREENSHOT_SET ?? "after";
const dir = `test-results/screenshots/${SET}`;

const PERSONAS = ["admin", "regulator", "clinic", "lmc", "researcher", "trustcenter", "patient1", "patient2"];
const VIEWS: { user: string; path: string; name: string }[] = [
  { user: "researcher", path: "/graph", name: "graph-explorer-researcher" },
  { user: "admin", path: "/graph", name: "graph-explorer-admin" },
  { user: "researcher", path: "/ask", name: "ask-researcher" },
  { user: "regulator", path: "/access-body/report", name: "activity-report" },
  { user: "regulator", path: "/access-body", name: "access-body-queue" },
  { user: "trustcenter", path: "/trust-center", name: "trust-center" },
  { user: "patient1", path: "/my-record", name: "my-record-patient1" },
];

for (const user of PERSONAS) {
  test(`screenshot: ${user}'s home`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs(page, user, "/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.screenshot({ path: `${dir}/home-${user}.png`, fullPage: true });
  });
}

// issue 40: the public landing page, and each persona's home on a 390 px phone (menu closed, then open)
test("screenshot: the landing page", async ({ page }) => {
  for (const [name, size] of [
    ["landing", { width: 1440, height: 900 }],
    ["landing-phone", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
  }
});

for (const user of PERSONAS) {
  test(`screenshot: ${user}'s home on a phone`, async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(page, user, "/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.screenshot({ path: `${dir}/home-${user}-phone.png`, fullPage: true });
    await page.getByTestId("nav-toggle").click();
    await page.screenshot({ path: `${dir}/home-${user}-phone-menu.png` });
  });
}

for (const v of VIEWS) {
  test(`screenshot: ${v.name}`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInAs(page, v.user, v.path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    if (v.path === "/graph") {
      // expand the first node, so the shot shows the labels of an expanded neighbourhood
      const canvas = page.getByTestId("graph-canvas");
      await expect(canvas).toHaveAttribute("data-ready", "true");
      await page.waitForTimeout(1500);
      const pos = await page.evaluate(() => {
        const g = window.__hdhGraph;
        const id = g?.nodeIds()[0];
        return id ? g!.screenPosition(id) : null;
      });
      if (pos) {
        await canvas.dblclick({ position: pos });
        await page.waitForTimeout(2500);
      }
    }
    await page.screenshot({ path: `${dir}/${v.name}.png`, fullPage: true });
  });
}
