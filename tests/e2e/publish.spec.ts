import { expect, test } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Publishing a dataset through the form (issue 40): the form takes the page's width with Publish in
 * view, the identifier is made from the title, theme, legal basis and purpose are chosen from their
 * vocabularies, and the record count is the publisher's declared one.
 */
test("a data holder publishes a dataset through the full-width form with chosen vocabularies", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInAs(page, "clinic", "/catalogue/new");
  const form = page.getByTestId("publish-form");
  await expect(form).toBeVisible();
  // full width: no list beside it, and the form spans most of the content column
  await expect(page.getByTestId("catalogue-results")).toHaveCount(0);
  const formBox = (await form.boundingBox())!;
  const pageBox = (await page.getByTestId("catalogue-page").boundingBox())!;
  expect(formBox.width).toBeGreaterThan(pageBox.width * 0.85);

  // the vocabularies are select lists, not free text
  await expect(page.getByTestId("publish-theme")).toBeVisible();
  await expect(page.getByTestId("publish-legalBasis")).toBeVisible();
  await expect(page.getByTestId("publish-purpose")).toBeVisible();
  await expect(page.getByText("Record count (declared)")).toBeVisible();

  await form.locator('[name="title"]').fill("Sepsis registry Berlin (e2e)");
  await form.locator('[name="description"]').fill("Adult sepsis admissions with outcomes.");
  await page.getByTestId("publish-theme").selectOption({ label: "Health" });
  await page.getByTestId("publish-legalBasis").selectOption("GDPR Art. 6(1)(e) and Art. 9(2)(j)");
  await page.getByTestId("publish-purpose").selectOption({ label: "Scientific research (Art. 53(1)(e))" });
  await form.locator('[name="recordCount"]').fill("1200");
  await page.getByTestId("publish-submit").click();

  // the identifier was made from the title
  await page.waitForURL(/\/catalogue\/sepsis-registry-berlin-e2e\?created=1$/);
  await expect(page.getByTestId("dataset-created-notice")).toBeVisible();
  await expect(page.getByTestId("dataset-title")).toHaveText("Sepsis registry Berlin (e2e)");
  await expect(page.getByTestId("dataset-field-theme")).toContainText("Health");
  await expect(page.getByTestId("dataset-field-purpose")).toContainText(
    "Scientific research (Art. 53(1)(e))",
  );
  await expect(page.getByText("declared by the publisher")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/clinic-publish-form-published.png", fullPage: true });
});
