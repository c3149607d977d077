import { expect, test } from "@playwright/test";
import { signInAs, signOut } from "./support";

/** Issue 2's journeys in Chromium through the real sign-in: a data holder, a researcher, a patient. */

test("sign-in page shows the persona cards and the password hint", async ({ page }) => {
  await page.goto("/auth/signin");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  for (const u of [
    "admin",
    "regulator",
    "clinic",
    "lmc",
    "researcher",
    "trustcenter",
    "patient1",
    "patient2",
  ]) {
    await expect(page.getByTestId(`persona-${u}`)).toBeVisible();
  }
  await expect(page.getByText("The password of each is its username")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/signin.png", fullPage: true });
});

// issue 40: `/` sent a visitor to sign in, whose "Home" link came back to `/`
test("a visitor opens on the public landing page, goes to sign-in and Home again, and starts as a persona", async ({
  page,
}) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("landing")).toBeVisible();
  await expect(page.getByTestId("landing-datasets")).toHaveText(/^\d+$/);
  await expect(page.getByTestId("landing-participant-list")).toContainText("AlphaKlinik Berlin");
  await expect(page.getByRole("link", { name: "Register of data permits" })).toHaveAttribute(
    "href",
    "/register",
  );
  await page.screenshot({ path: "test-results/screens/landing.png", fullPage: true });
  await page.getByRole("banner").getByRole("link", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/auth\/signin/);
  await page.getByRole("link", { name: "Home" }).click();
  await expect(page.getByTestId("landing")).toBeVisible();
  await page.getByTestId("landing").getByTestId("persona-researcher").click();
  await page.locator('input[name="password"]').fill("researcher");
  await page.locator('form button[type="submit"]').first().click();
  await expect(page.getByTestId("overview")).toBeVisible();
  await expect(page.getByTestId("whoami")).toContainText("PharmaCo Research AG");
});

test("anonymous visitors are sent to sign in and come back where they were going", async ({ page }) => {
  await page.goto("/catalogue?q=diabetes");
  await expect(page).toHaveURL(/\/auth\/signin\?returnTo=/);
  await page.getByTestId("persona-researcher").click();
  await page.locator('input[name="password"]').fill("researcher");
  await page.locator('form button[type="submit"]').first().click();
  await expect(page).toHaveURL(/\/catalogue\?q=diabetes/);
  await expect(page.getByTestId("whoami")).toContainText("PharmaCo Research AG");
});

test("data holder publishes a dataset, finds it, and withdraws it", async ({ page }) => {
  await signInAs(page, "clinic", "/catalogue");
  await expect(page.getByTestId("catalogue-page")).toBeVisible();
  const before = Number((await page.getByTestId("catalogue-count").innerText()).match(/\d+/)?.[0]);
  await page.getByTestId("catalogue-publish-link").click();
  await page.locator('input[name="id"]').fill("dataset-e2e-stroke-registry");
  await page.locator('input[name="title"], textarea[name="title"]').first().fill("Stroke registry (e2e)");
  await page.locator('form [name="description"]').fill("Acute stroke admissions with imaging and outcomes.");
  await page.locator('[name="license"]').fill("not a uri");
  await page.getByTestId("publish-submit").click();
  await expect(page.getByTestId("publish-error-license")).toBeVisible();
  await page.locator('[name="license"]').fill("https://creativecommons.org/licenses/by/4.0/");
  await page.getByTestId("publish-submit").click();
  await expect(page.getByTestId("dataset-created-notice")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/clinic-published.png", fullPage: true });

  await page.goto("/catalogue?q=stroke");
  await expect(
    page.getByTestId("catalogue-result").filter({ hasText: "Stroke registry (e2e)" }),
  ).toBeVisible();
  await page.goto("/catalogue/dataset-e2e-stroke-registry");
  await expect(page.getByTestId("dataset-title")).toHaveText("Stroke registry (e2e)");
  await page.getByTestId("dataset-withdraw").click();
  await page.getByTestId("dataset-withdraw-submit").click();
  await expect(page.getByTestId("catalogue-withdrawn-notice")).toBeVisible();
  await page.goto("/catalogue");
  await expect(page.getByTestId("catalogue-count")).toContainText(String(before));
  await signOut(page);
  await page.goto("/catalogue");
  await expect(page).toHaveURL(/\/auth\/signin/);
});

test("researcher explores the knowledge graph: layers, inspector, expand", async ({ page }) => {
  await signInAs(page, "researcher", "/graph");
  await expect(page.getByTestId("graph-canvas")).toBeVisible();
  await expect(page.getByTestId("graph-meta-nodes")).toContainText(/\d/);
  await expect(page.getByTestId("catalogue-publish-link")).toHaveCount(0);
  await page.getByTestId("graph-layer").selectOption("l5");
  await expect(page).toHaveURL(/layer=l5/);
  await expect(page.getByTestId("graph-legend")).toBeVisible();
  // a terminology concept: its neighbours (coded conditions, OMOP rows) are not in the l5 drawing
  await page.getByTestId("graph-find").fill("diabetes");
  await page.getByTestId("graph-find-result").first().click();
  await expect(page.getByTestId("graph-inspector")).toBeVisible();
  await expect(page.getByTestId("inspector-relationships")).toBeVisible();
  await page.getByTestId("inspector-expand").click();
  await expect(page.getByTestId("graph-meta-added")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/researcher-graph.png", fullPage: true });

  await page.getByTestId("graph-tab-validate").click();
  await expect(page.getByTestId("validation-verdict")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/researcher-validate.png", fullPage: true });
  // researchers see no patient views
  await expect(page.getByRole("link", { name: "Patients" })).toHaveCount(0);
});

test("patient sees their own record, grants and revokes research consent", async ({ page }) => {
  await signInAs(page, "patient1", "/my-record");
  await expect(page.getByTestId("patient-name")).toContainText("Maria Schneider");
  await expect(page.getByTestId("patient-timeline")).toBeVisible();
  await expect(page.getByTestId("timeline-event").first()).toBeVisible();
  await expect(page.getByRole("link", { name: "Knowledge graph" })).toHaveCount(0);
  const programme = page.getByTestId("programme").first();
  await programme.getByTestId("consent-grant").click();
  await expect(page.getByTestId("consent-result")).toBeVisible();
  await expect(page.getByTestId("programme").first().getByTestId("consent-revoke")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/patient-consent.png", fullPage: true });
  await page.getByTestId("programme").first().getByTestId("consent-revoke").click();
  await expect(page.getByTestId("programme").first().getByTestId("consent-grant")).toBeVisible();
  // another patient's record is refused
  const res = await page.request.get("/api/patient/profile?patientId=patient-000002");
  expect(res.status()).toBe(403);
  await page.goto("/graph");
  await expect(page.locator("body")).toContainText(/not allowed|role/i);
});
