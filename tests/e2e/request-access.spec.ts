import { expect, test } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Issue 40: a researcher asks for access from the dataset itself. The dataset page lists the assets of
 * the dataspace drawn from it, each with "Request access" into the negotiation (provider and offer
 * chosen), and, for health data about people, the data permit application with the dataset ticked;
 * the negotiation names the catalogue dataset each asset is drawn from (linked both ways).
 */
const DATASET = "dataset-alphaklinik-diabetes";

test("request access from a dataset: into the negotiation with the offer chosen, and back", async ({
  page,
}) => {
  await signInAs(page, "researcher", `/catalogue/${DATASET}`);
  const access = page.getByTestId("dataset-access");
  await expect(access.getByRole("heading", { name: "Request access" })).toBeVisible();
  // the record count is the publisher's word, not a measured one
  await expect(page.getByTestId("dataset-field-recordCount")).toContainText("declared by the publisher");
  const offers = access.getByTestId("dataset-offer");
  // AlphaKlinik's FHIR bundle and its OMOP statistics are both drawn from this cohort
  await expect(offers).toHaveCount(2);
  const bundle = access.locator('[data-testid="dataset-offer"][data-asset-id="fhir-cohort-bundle"]');
  await expect(bundle).toContainText("offered by AlphaKlinik Berlin");
  await bundle.getByTestId("dataset-request-access").click();
  await page.waitForURL(/\/negotiate\?provider=alphaklinik-berlin&asset=fhir-cohort-bundle/);
  const chosen = page.locator('[data-testid="negotiate-offer"][data-asset-id="fhir-cohort-bundle"]').first();
  await expect(chosen).toBeChecked();
  const item = page.locator('[data-testid="negotiate-dataset"][data-asset-id="fhir-cohort-bundle"]');
  await item.getByTestId("negotiate-dataset-sources").getByRole("link").first().click();
  await page.waitForURL(new RegExp(`/catalogue/${DATASET}$`));
  await expect(page.getByTestId("dataset-title")).toBeVisible();
});

test("health data in secondary use: the permit application opens with the dataset ticked", async ({
  page,
}) => {
  await signInAs(page, "researcher", `/catalogue/${DATASET}`);
  await expect(page.getByTestId("dataset-permit-note")).toBeVisible();
  await page.getByTestId("dataset-apply-permit").click();
  await page.waitForURL(/\/applications\?dataset=/);
  const form = page.getByTestId("apply-form");
  await expect(form.locator(`input[name="datasets"][value="${DATASET}"]`)).toBeChecked();
  // only that one
  await expect(form.locator('input[name="datasets"]:checked')).toHaveCount(1);
});

test("the holder sees its own offer of the dataset, not a request to itself", async ({ page }) => {
  await signInAs(page, "clinic", `/catalogue/${DATASET}`);
  const access = page.getByTestId("dataset-access");
  await expect(access.getByTestId("dataset-own-offer").first()).toBeVisible();
  await expect(access.getByTestId("dataset-request-access")).toHaveCount(0);
});
