import { expect, test } from "@playwright/test";

/**
 * Issue 39: the API reference page (server/openapi/reference-page.ts) is reachable from the public
 * landing page and renders /api/openapi.json with the renderer served by the hub itself: no request
 * leaves the hub's origin and the page's CSP refuses nothing.
 */
test("the landing page links to the API reference, which renders the operations of /api/openapi.json", async ({
  page,
  baseURL,
}) => {
  const foreign: string[] = [];
  const refused: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(baseURL!) && !r.url().startsWith("data:")) foreign.push(r.url());
  });
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
  });

  await page.goto("/");
  await page.getByTestId("landing-api-reference").click();
  await expect(page).toHaveURL(/\/docs\/api$/);
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  // an operation's summary, as the document states it, rendered by the renderer
  await expect(page.getByText("A node with its relationships").first()).toBeVisible({ timeout: 20_000 });
  await expect(page.locator(".opblock").first()).toBeVisible();
  expect(await page.locator(".opblock").count()).toBeGreaterThan(90);
  expect(foreign).toEqual([]);
  expect(refused).toEqual([]);
});
