import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./support";

/**
 * In-app links (app/components/ui/app-link.tsx): plain anchors that the root turns into client-side
 * navigations; the browser keeps modifier clicks; a resting pointer prefetches where a link asks for it.
 */

/** a value on the window survives a client-side navigation and is gone after a document load */
const mark = (page: Page) => page.evaluate(() => ((window as unknown as { hubMark: number }).hubMark = 42));
const marked = (page: Page) =>
  page.evaluate(() => (window as unknown as { hubMark?: number }).hubMark === 42);

test("the side navigation and the result list navigate in the page, and mark the current entry", async ({
  page,
}) => {
  await signInAs(page, "researcher", "/");
  await mark(page);
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Catalogue" }).click();
  await expect(page).toHaveURL(/\/catalogue$/);
  await expect(nav.getByRole("link", { name: "Catalogue" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("catalogue-results")).toBeVisible();
  expect(await marked(page)).toBe(true);

  // a pointer resting on a result loads that dataset's data before the click
  const first = page.getByTestId("catalogue-result").first();
  const id = await first.getAttribute("data-dataset-id");
  await first.hover();
  await expect(
    page.locator(`link[rel="prefetch"][href*="/catalogue/${encodeURIComponent(id!)}.data"]`),
  ).toHaveCount(1);
  await first.click();
  await expect(page).toHaveURL(new RegExp(`/catalogue/${encodeURIComponent(id!)}$`));
  await expect(first).toHaveAttribute("aria-current", "true");
  expect(await marked(page)).toBe(true);

  // back works as with any link
  await page.goBack();
  await expect(page).toHaveURL(/\/catalogue$/);
  expect(await marked(page)).toBe(true);
});

test("a modifier click is the browser's: it opens a new tab and leaves this page where it was", async ({
  page,
  context,
}) => {
  await signInAs(page, "researcher", "/");
  const link = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Catalogue" });
  const [opened] = await Promise.all([context.waitForEvent("page"), link.click({ modifiers: ["Control"] })]);
  await opened.waitForLoadState();
  expect(new URL(opened.url()).pathname).toBe("/catalogue");
  expect(new URL(page.url()).pathname).toBe("/");
  await opened.close();
});
