import { expect, test, type Page } from "@playwright/test";
import { signInAs, signOut } from "./support";

/**
 * Issue 5's journey in Chromium through the real sign-in: a researcher applies, the regulator asks
 * for information, the researcher answers, the regulator grants a permit, the permit appears in the
 * public register, the regulator revokes it. Screenshots are kept in test-results/screens/.
 */

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/access-body-${name}.png`, fullPage: true });
const TITLE = `Readmissions after pneumonia (e2e ${Date.now().toString(36)})`;

test("researcher applies, regulator asks, researcher answers, regulator grants, register shows it, regulator revokes", async ({
  page,
}) => {
  test.setTimeout(120_000);
  // 1. the researcher applies
  await signInAs(page, "researcher", "/applications");
  const form = page.getByTestId("apply-form");
  await form.locator('input[name="title"]').fill(TITLE);
  await form.locator('select[name="purpose"]').selectOption("scientificResearch");
  await form.getByLabel(/Respiratory disease cohort/).check();
  await form
    .locator('textarea[name="summary"]')
    .fill("Readmission within 30 days after hospital treatment for pneumonia, by age band and comorbidity.");
  await form.getByRole("button", { name: "Submit application" }).click();
  await expect(page.getByRole("status")).toContainText("Application submitted");
  const row = page.getByTestId("my-applications").locator("tr", { hasText: TITLE });
  await expect(row).toContainText("Received");
  const appId = ((await row.getAttribute("data-testid")) ?? "").replace(/^app-/, "");
  expect(appId).toMatch(/^DAA-\d{4}-\d{4}$/);
  await shot(page, "1-researcher-applied");
  await signOut(page);

  // 2. the regulator finds it in the work queue, finds it complete and asks for information
  await signInAs(page, "regulator", "/access-body");
  await expect(page.getByTestId(`queue-${appId}`)).toContainText("Check completeness");
  await page.getByTestId(`queue-${appId}`).getByRole("link", { name: TITLE }).click();
  await expect(page).toHaveURL(new RegExp(`/access-body/applications/${appId}$`));
  await page.getByRole("button", { name: "Application is complete" }).click();
  await expect(page.getByRole("status")).toContainText("Found complete");
  await expect(page.getByTestId("clock")).toContainText("days left");
  await page
    .getByTestId("information-request-form")
    .locator('textarea[name="questions"]')
    .fill("Please send the favourable opinion of the research ethics committee.");
  await page.getByRole("button", { name: /Send information request/ }).click();
  await expect(page.getByRole("status")).toContainText("Information requested");
  await expect(page.getByTestId("clock")).toContainText("clock paused");
  await expect(page.getByTestId("grant-form")).toHaveCount(0);
  await shot(page, "2-regulator-asked");
  await signOut(page);

  // 3. the researcher answers
  await signInAs(page, "researcher", "/applications");
  const ask = page.getByTestId("open-information-requests").locator("form", { hasText: TITLE });
  await expect(ask).toContainText("ethics committee");
  await ask
    .locator('textarea[name="answer"]')
    .fill("The favourable opinion of the ethics committee of 2 November is attached.");
  await shot(page, "3-researcher-answers");
  await ask.getByRole("button", { name: "Send answer" }).click();
  await expect(page.getByRole("status")).toContainText("Answer sent");
  await expect(page.getByTestId("my-applications").locator("tr", { hasText: TITLE })).toContainText(
    "Under assessment",
  );
  await signOut(page);

  // 4. the regulator grants a data permit
  await signInAs(page, "regulator", `/access-body/applications/${appId}`);
  await expect(page.getByTestId("clock")).not.toContainText("clock paused");
  await page.getByTestId("grant-form").locator('input[name="durationMonths"]').fill("12");
  await page.getByRole("button", { name: "Issue data permit" }).click();
  await expect(page.getByRole("status")).toContainText("Data permit issued");
  await expect(page.locator("h1").getByTestId("state")).toHaveText("Granted");
  const permitHeading = page.getByRole("heading", { name: /Data permit MEDREG-DP-/ });
  const permitId = ((await permitHeading.innerText()).match(/MEDREG-DP-\d{4}-\d{4}/) ?? [""])[0];
  expect(permitId).not.toBe("");
  await expect(page.getByTestId("timeline")).toContainText("Information requested — clock paused");
  await expect(page.getByTestId("timeline")).toContainText("Permit issued");
  await shot(page, "4-regulator-granted");
  await signOut(page);

  // 5. the permit is in the public register, without a session and without names
  await page.goto("/register");
  const reg = page.getByTestId(`register-${permitId}`);
  await expect(reg).toContainText("PharmaCo Research AG");
  await expect(reg).toContainText("Active");
  await expect(page.locator("main")).not.toContainText("Lukas Schmidt");
  await shot(page, "5-public-register");

  // 6. the regulator revokes it
  await signInAs(page, "regulator", `/access-body/applications/${appId}`);
  await page
    .locator('form:has(input[name="intent"][value="revoke"]) textarea[name="reason"]')
    .fill("Condition 3 breached: outputs left the environment without the output check.");
  await page.getByRole("button", { name: "Revoke permit" }).click();
  await expect(page.getByRole("status")).toContainText("Permit revoked");
  await expect(page.getByTestId("timeline")).toContainText("Revoked");
  await shot(page, "6-regulator-revoked");
  await signOut(page);
  await page.goto("/register");
  await expect(page.getByTestId(`register-${permitId}`)).toContainText("Revoked");
  await expect(page.getByTestId(`register-${permitId}`)).toContainText("Condition 3 breached");
  await shot(page, "7-register-revoked");
});

test("the work queue sorts by deadline and shows overdue clocks in red; report, compliance and public information render", async ({
  page,
}) => {
  await signInAs(page, "regulator", "/access-body");
  const rows = page.getByTestId("work-queue").locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  const overdue = page.locator("tr.ab-row-overdue");
  if ((await overdue.count()) > 0) {
    await expect(overdue.first().getByTestId("days-left")).toContainText("overdue");
    const colour = await overdue
      .first()
      .getByTestId("days-left")
      .evaluate((el) => getComputedStyle(el).color);
    expect(colour).toBe("rgb(180, 35, 24)");
  }
  await expect(page.getByTestId("work-queue")).toContainText("clock paused");
  await shot(page, "queue");
  await page.goto("/access-body/report?from=2020-01-01&to=2030-12-31");
  await expect(page.locator("ul.ab-bars").first()).toBeVisible();
  await expect(page.getByTestId("download-csv")).toHaveAttribute("href", /format=csv/);
  await shot(page, "report");
  await page.goto("/access-body/compliance");
  await expect(page.getByTestId("tck")).toContainText("ehds.state-machines");
  await shot(page, "compliance");
  await signOut(page);
  await page.goto("/information");
  await expect(page.getByRole("heading", { name: "Secondary use of health data" })).toBeVisible();
  await expect(page.getByText("Art. 53(1)(e)", { exact: true })).toBeVisible();
  await shot(page, "information");
});
