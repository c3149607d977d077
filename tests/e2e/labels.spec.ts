import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Issue 14's journeys: what a new user saw trip them up, asserted in Chromium on a fresh server —
 * raw enum names, labels that contradict each other, data that aged, and layout slips.
 */

/** identifiers that must never reach the screen as such */
const RAW =
  /\b(awaitingPermit|healthCareAndMedicinalProductSafety|scientificResearch|officialStatistics|HDAB_AUTHORITY|DATA_HOLDER|DATA_USER|CONNECTOR_USER_PARTICIPANT|CONNECTOR_ADMIN|TRUST_CENTER_OPERATOR|UNDER_ASSESSMENT|INFORMATION_REQUESTED|hdab authority|connector user participant|approvals GRANTED)\b/;

async function mainText(page: Page): Promise<string> {
  return page.locator("main").innerText();
}

async function expectNoRaw(page: Page, path: string) {
  await page.goto(path);
  const text = await mainText(page);
  expect(text.match(RAW)?.[0] ?? null, `raw identifier on ${path}`).toBeNull();
}

test("the regulator: labels in words, one current sidebar entry, fresh work in the queue", async ({
  page,
}) => {
  await signInAs(page, "regulator", "/");
  await expect(page.locator(".whoami .roles")).toHaveText("Health data access body");
  await expect(page.getByRole("heading", { name: "Your views" })).toHaveCount(0);
  await expect(page.getByTestId("next-steps").getByRole("link")).toHaveCount(3);
  // one permit-expiry card, not two near-identical ones
  await expect(page.getByTestId("signals").getByText(/expiring within 90 days/)).toHaveCount(1);
  for (const path of ["/", "/access-body", "/access-body/permits", "/access-body/report", "/register"])
    await expectNoRaw(page, path);

  await page.goto("/access-body/report");
  await expect(page.getByRole("navigation", { name: "Main" }).locator('[aria-current="page"]')).toHaveText([
    "Activity report",
  ]);
  // no table of headers only: either decision times or a sentence saying why there are none
  const table = page.getByTestId("decision-times");
  if (!(await table.count())) await expect(page.getByText(/no decision times/i)).toBeVisible();

  // demonstration data is dated from the day of seeding: nothing is months overdue
  await page.goto("/access-body");
  const overdue = (await mainText(page)).match(/(\d+) days? overdue/g) ?? [];
  for (const o of overdue) expect(Number(o.split(" ")[0]), o).toBeLessThan(60);
  await page.goto("/register");
  await expect(page.locator("main")).not.toContainText("approximated at seeding");
});

test("the researcher: role chips and results table read as words", async ({ page }) => {
  await signInAs(page, "researcher", "/");
  await expect(page.locator(".whoami .roles")).toHaveText("Data user · Dataspace participant");
  await expect(page.getByTestId("persona-tabs").getByRole("link")).toHaveCount(2);
  for (const path of ["/", "/applications", "/negotiations", "/catalogue"]) await expectNoRaw(page, path);
  await page.goto("/applications");
  const headers = await page.locator("main table thead th").allInnerTexts();
  for (const h of headers) expect(h.trim(), "an empty column header").not.toBe("");
  await expect(page.locator("main")).not.toContainText("Output check: Output check");
});

test("the trust center: sessions only for issued permits, counts that agree with the register", async ({
  page,
}) => {
  await signInAs(page, "trustcenter", "/trust-center");
  const text = await mainText(page);
  expect(text).not.toMatch(/\b1 active sessions\b/);
  expect(text).not.toMatch(/Trust Center DE \(DE\)/);
  expect(text.match(RAW)?.[0] ?? null).toBeNull();
  await expect(page.getByTestId("spe-sessions")).not.toContainText("Scheduled");
  const permits = await page.getByTestId("spe-sessions").locator("tbody tr").allInnerTexts();
  await page.goto("/register");
  const register = await mainText(page);
  for (const row of permits) {
    const id = row.match(/MEDREG-DP-\d{4}-\d{4}/)?.[0];
    expect(id, "a session names its permit").toBeTruthy();
    expect(register, `${id} is in the permit register`).toContain(id!);
  }
});

test("the patient: no consent offered for a permit that is not in force", async ({ page }) => {
  await signInAs(page, "patient1", "/my-record");
  await expectNoRaw(page, "/my-record");
  const programmes = page.getByTestId("programme");
  const n = await programmes.count();
  expect(n).toBeGreaterThan(0);
  for (let i = 0; i < n; i++) {
    const p = programmes.nth(i);
    const status = await p.getByTestId("programme-status").innerText();
    if (!/in force/i.test(status)) await expect(p.getByTestId("consent-grant")).toHaveCount(0);
  }
});
