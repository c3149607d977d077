import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Issue 6's journeys in Chromium through the real sign-in (200 seeded patients): the researcher
 * asks the pharmacovigilance question and sees the answer under their ODRL scope; builds a
 * federated cohort and sees suppressed cells marked; opens analytics and the EEHRxF coverage.
 * Screenshots are kept in test-results/screens/.
 */
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/insight-${name}.png`, fullPage: true });
const PV =
  "Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?";

test("researcher asks the pharmacovigilance question and sees the answer", async ({ page }) => {
  await signInAs(page, "researcher", "/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Ask a question" }).click();
  await expect(page.getByTestId("ask-form")).toBeVisible();
  await page.getByTestId("question").fill(PV);
  await page.getByTestId("ask-submit").click();

  const answer = page.getByTestId("answer");
  await expect(answer).toBeVisible();
  await expect(page.getByTestId("template-id")).toHaveText("pharmacovigilance");
  await expect(page.getByTestId("interpretation")).toContainText("ciprofloxacin (RxNorm 2551)");
  await expect(page.getByTestId("interpretation")).toContainText(
    "Urinary tract infectious disease (SNOMED CT 68566005, ICD-10 N39.0)",
  );
  const table = page.getByTestId("answer-table");
  await expect(table.locator("tbody tr")).toHaveCount(3);
  await expect(table).toContainText("treated with ciprofloxacin");
  await expect(table).toContainText("all other patients (background)");
  // the query it stands for, how it ran, the layers, the terms and the scope
  await expect(page.getByTestId("query")).toContainText("MATCH (:SnomedConcept {code: $condition})");
  await expect(page.getByTestId("plan").locator("li")).toHaveCount(4);
  await expect(page.getByTestId("layer")).toHaveText([
    "L5 · Ontology and terminologies",
    "L4 · OMOP CDM v5.4",
  ]);
  await expect(page.getByTestId("terms")).toContainText("429513001");
  const scope = page.getByTestId("scope");
  await expect(scope).toContainText("k = 5");
  await expect(scope).toContainText("aggregate only");
  await expect(scope).toContainText("prohibited: re-identifying people");
  // with 200 patients the exposed group is small: its outcome count is suppressed, never shown
  await expect(table.getByTestId("suppressed-cell").first()).toHaveText("suppressed");
  await expect(page).toHaveURL(/\/ask\?q=Is\+tendon\+rupture/);
  await shot(page, "researcher-pharmacovigilance");

  // an example chip asks another template
  await page.getByTestId("example-condition-drug-count").click();
  await expect(page.getByTestId("template-id")).toHaveText("condition-drug-count");
});

test("researcher builds a federated cohort and sees suppressed cells marked", async ({ page }) => {
  await signInAs(page, "researcher", "/cohorts");
  await page
    .getByTestId("criterion-condition")
    .selectOption({ label: "Hypertensive disorder, systemic arterial" });
  await page.getByTestId("cohort-run").click();
  await expect(page.getByTestId("cohort-result")).toBeVisible();
  await expect(page.getByTestId("environments").locator("tbody tr")).toHaveCount(2);
  await expect(page.getByTestId("cohort-total")).toHaveText(/^\d+$/);
  await expect(page.getByTestId("suppression-legend")).toContainText("marks a suppressed cell");
  // a rare cohort: everything suppressed and marked
  await page.goto("/cohorts?condition=429513001&run=1");
  await expect(page.getByTestId("cohort-total")).toHaveText("suppressed");
  await expect(page.getByTestId("suppression-flag")).toBeVisible();
  await shot(page, "researcher-cohort-suppressed");
});

test("analytics dashboard with CSV export, and EEHRxF coverage", async ({ page }) => {
  await signInAs(page, "regulator", "/analytics");
  await expect(page.getByTestId("total-persons")).toContainText("200");
  await expect(page.getByTestId("chart-conditions").locator("li")).toHaveCount(10);
  await expect(page.getByTestId("chart-age").locator("svg")).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByTestId("csv-export").click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^omop-analytics-v\d+\.csv$/);
  await shot(page, "regulator-analytics");
  await page.goto("/eehrxf");
  await expect(page.getByTestId("category-laboratory")).toContainText("Observation (laboratory result)");
  await expect(page.getByTestId("category-imaging")).toContainText("not in the data");
  await shot(page, "regulator-eehrxf");
  await page.goto("/");
  await expect(page.getByTestId("persona")).toHaveText("Access body");
  await expect(page.getByTestId("signal-pending-approvals")).toBeVisible();
  await shot(page, "regulator-overview");
});
