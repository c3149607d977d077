import { expect, test } from "@playwright/test";
import { SimulatedDevice } from "../support/device";
import { signInAs } from "./support";

/**
 * Issue 8's journey in Chromium: a patient signs in with the development wallet (a second tab plays
 * the phone's wallet), pairs a companion app, the app (a simulated device in this test process,
 * over real HTTP) posts a measurement, the patient sees it marked as self-measured, removes the
 * device, and the device is refused afterwards.
 */

const shot = (name: string) => ({ path: `test-results/screens/patient-app-${name}.png`, fullPage: true });

test("wallet sign-in, pairing, a self-measured observation, removal and refusal", async ({
  page,
  context,
  baseURL,
}) => {
  await page.goto("/auth/signin?returnTo=/devices");
  await page.getByTestId("signin-wallet").click();
  await expect(page).toHaveURL(/\/auth\/wallet\?/);
  await expect(page.getByTestId("wallet-qr")).toBeVisible();
  await expect(page.getByTestId("wallet-status")).toHaveAttribute("data-state", "pending");
  await expect(page.getByTestId("wallet-status")).toContainText(/expires in \d:\d\d/);
  await page.screenshot(shot("1-wallet-signin"));

  // the wallet: the development wallet, opened from the sign-in page in a new tab
  const [wallet] = await Promise.all([
    context.waitForEvent("page"),
    page.getByTestId("dev-wallet-link").click(),
  ]);
  await expect(wallet.getByTestId("wallet-consent")).toBeVisible();
  await expect(wallet.getByTestId("wallet-consent")).toContainText("given_name, family_name, birthdate");
  await wallet.getByTestId("wallet-identity-patient-000001").check();
  await wallet.screenshot(shot("2-dev-wallet"));
  await wallet.getByTestId("wallet-share").click();
  await expect(wallet.getByTestId("wallet-result")).toContainText(
    "Shared given_name, family_name, birthdate of Maria Schneider",
  );
  await wallet.screenshot(shot("3-dev-wallet-shared"));
  await wallet.close();

  // the sign-in page sees the verified presentation and signs the patient in
  await expect(page).toHaveURL(/\/devices$/, { timeout: 15_000 });
  await expect(page.getByTestId("whoami")).toContainText("Maria Schneider");
  await expect(page.getByTestId("no-devices")).toBeVisible();

  // pairing: code and QR on the page, completed by the app
  await page.getByTestId("pair-device").click();
  await expect(page.getByTestId("pairing-code")).toHaveText(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  await expect(page.getByTestId("pairing-state")).toHaveAttribute("data-state", "pending");
  await page.screenshot(shot("4-pairing"));
  const code = (await page.getByTestId("pairing-code").innerText()).trim();
  const device = await SimulatedDevice.create(baseURL!, "Maria's phone");
  expect((await device.pair(code)).status).toBe(201);
  await expect(page.getByTestId("pairing-state")).toHaveAttribute("data-state", "completed");
  await expect(page.getByTestId("device-list")).toContainText("Maria's phone");
  await page.screenshot(shot("5-paired"));

  // the app adds a measurement; the patient sees it, marked as self-measured
  const posted = await device.request(
    "POST",
    "/api/patient/app/record",
    SimulatedDevice.observation("8867-4", 74, "/min"),
  );
  expect(posted.status).toBe(201);
  await page.reload();
  const row = page.getByTestId("self-measured-row").filter({ hasText: "Heart rate" });
  await expect(row).toContainText("74 beats/min");
  await expect(row).toContainText("Self-measured");
  await expect(row).toContainText("Maria's phone");
  await expect(page.getByTestId("device-list")).not.toContainText("not yet");
  await page.screenshot(shot("6-self-measured"));

  // removal, with a confirmation step; the device is refused from then on
  await page.getByTestId(`remove-${device.accountId}`).click();
  await expect(page.getByTestId("confirm-remove")).toContainText("Maria's phone");
  await page.screenshot(shot("7-confirm-remove"));
  await page.getByTestId("confirm-remove-button").click();
  await expect(page.getByTestId("devices-notice")).toContainText("Maria's phone was removed");
  await expect(page.getByTestId("no-devices")).toBeVisible();
  await page.screenshot(shot("8-removed"));
  const refused = await device.request("GET", "/api/patient/app/record");
  expect(refused.status).toBe(401);
  expect((await refused.json()).error).toMatch(/removed, its credential is revoked/);
  // the measurement stays in the record until the patient erases it
  await expect(page.getByTestId("self-measured-row").filter({ hasText: "Heart rate" })).toBeVisible();
});

test("a wallet presenting someone without a record here is refused, clearly", async ({ page, context }) => {
  await page.goto("/auth/wallet");
  await expect(page.getByTestId("wallet-qr")).toBeVisible();
  const [wallet] = await Promise.all([
    context.waitForEvent("page"),
    page.getByTestId("dev-wallet-link").click(),
  ]);
  await wallet.getByTestId("wallet-identity-specimen").check();
  await wallet.getByTestId("wallet-share").click();
  await expect(wallet.getByTestId("wallet-result")).toContainText("Erika Mustermann");
  await wallet.close();
  await expect(page.getByTestId("wallet-status")).toHaveAttribute("data-state", "failed", {
    timeout: 15_000,
  });
  await expect(page.getByTestId("wallet-reason")).toContainText(
    "No patient record matches the name and date of birth your wallet presented",
  );
  await expect(page.getByTestId("whoami")).toHaveCount(0);
  await page.screenshot(shot("9-refused"));
});

test("the devices page: a measurement typed in, EHR sync twice, erasure of all app data", async ({
  page,
}) => {
  await signInAs(page, "patient2", "/devices");
  // a value that is not a number: the field is marked, described by the message and focused
  const value = page.locator('input[name="value"]');
  await value.fill("fast");
  await page.getByRole("button", { name: "Add" }).click();
  await expect(value).toHaveAttribute("aria-invalid", "true");
  await expect(value).toBeFocused();
  await expect(page.getByTestId("field-error-value")).toHaveText("Enter the measured value as a number.");
  await page.locator('select[name="measure"]').selectOption("8480-6|mm[Hg]");
  await page.locator('input[name="value"]').fill("300");
  await page.getByRole("button", { name: "Add" }).click();
  await expect(page.getByTestId("devices-error")).toContainText("outside the plausible range");
  await page.locator('select[name="measure"]').selectOption("8480-6|mm[Hg]");
  await page.locator('input[name="value"]').fill("132");
  await page.getByRole("button", { name: "Add" }).click();
  await expect(page.getByTestId("devices-notice")).toContainText("Added 1 self-measured observation");
  await expect(
    page.getByTestId("self-measured-row").filter({ hasText: "Systolic blood pressure" }),
  ).toContainText("132 mmHg");

  await page.getByTestId("ehr-sync").click();
  await expect(page.getByTestId("sync-report")).toContainText(/\d+ added, 0 updated, 0 removed, 0 unchanged/);
  await page.getByTestId("ehr-sync").click();
  await expect(page.getByTestId("sync-report")).toContainText(/Already up to date: \d+ records unchanged/);
  await page.screenshot(shot("10-sync"));

  await page.getByTestId("erase-app-data").click();
  await expect(page.getByTestId("devices-error")).toContainText("Tick the box");
  await page.getByLabel("I want to erase all app data").check();
  await page.getByTestId("erase-app-data").click();
  await expect(page.getByTestId("erase-report")).toContainText("1 self-measured measurement,");
  await expect(page.getByTestId("no-self-measured")).toBeVisible();
  await page.screenshot(shot("11-erased"));
});
