import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Decision 0027: the graph page's document carries the explorer's frame only; the drawing's graph
 * comes after hydration from /graph/drawing, and a layer change loads the new scope's drawing.
 */

const drawnIds = (page: Page) => page.evaluate(() => window.__hdhGraph?.nodeIds() ?? []);
const count = (text: string | null) => Number((text ?? "").replace(/\D/g, ""));

test("the graph page's document holds no graph; the drawing loads after it, and a layer change redraws", async ({
  page,
}) => {
  await signInAs(page, "admin", "/graph");
  const canvas = page.getByTestId("graph-canvas");
  await expect(canvas).toHaveAttribute("data-ready", "true");
  await expect(page.getByTestId("graph-drawing-loading")).toHaveCount(0);
  const returned = count(await page.getByTestId("graph-meta-nodes").textContent());
  expect(returned).toBeGreaterThan(100);
  await expect(page.getByTestId("graph-node-list").locator("summary")).toContainText(
    `${returned.toLocaleString("en")} nodes`,
  );
  const ids = await drawnIds(page);
  expect(ids.length).toBe(returned);

  // the document as the browser got it: small, with the loading state and none of the drawn nodes
  const html = await (await page.request.get("/graph", { headers: { Accept: "text/html" } })).text();
  expect(html.length).toBeLessThan(40_000);
  expect(html).toContain("Loading the drawing…");
  expect(html).toContain('aria-busy="true"');
  const sample = ids.filter((_, i) => i % 20 === 0);
  expect(sample.length).toBeGreaterThan(5);
  expect(sample.filter((id) => html.includes(id))).toEqual([]);

  // a layer change: the form's navigation, then the new scope's drawing (layer 5 only)
  await page.getByTestId("graph-layer").selectOption("l5");
  await expect(page).toHaveURL(/layer=l5/);
  const legend = page.getByTestId("graph-legend").locator("li");
  await expect(legend.first()).toContainText("(0)");
  await expect(legend.nth(4)).not.toContainText("(0)");
  await expect(canvas).toHaveAttribute("data-ready", "true");
  const l5 = count(await page.getByTestId("graph-meta-nodes").textContent());
  await expect.poll(async () => (await drawnIds(page)).length).toBe(l5);
  expect(l5).toBeGreaterThan(0);
  expect(await drawnIds(page)).not.toEqual(ids);
});
