import { expect, test } from "@playwright/test";
import { OFFLINE_URL } from "../../playwright.config";

/** The offline notice of a server whose OFFICE_HOLDS includes today (second web server of the config). */
test("outside office hours every page shows the offline notice, data routes 503, health stays up", async ({
  page,
  request,
}) => {
  const res = await page.goto(`${OFFLINE_URL}/catalogue`);
  expect(res?.status()).toBe(503);
  expect(Number(res?.headers()["retry-after"])).toBeGreaterThan(0);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(/offline/i);
  await expect(page.locator("time")).toHaveAttribute("datetime", /\d{4}-\d{2}-\d{2}T/);
  await page.screenshot({ path: "test-results/screens/offline-notice.png", fullPage: true });
  const api = await request.get(`${OFFLINE_URL}/api/catalog`);
  expect(api.status()).toBe(503);
  expect((await api.json()).error).toMatch(/hold|office hours/);
  expect((await request.get(`${OFFLINE_URL}/api/health`)).status()).toBe(200);
});
