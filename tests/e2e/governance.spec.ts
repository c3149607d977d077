import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./support";
import { auditKindLabel } from "../../app/components/ui/audit-labels";

/**
 * Issue 4's journeys in Chromium through the real sign-in: the operator (admin) runs the console,
 * restarts a component, keeps the participant directory, issues and revokes a credential and
 * writes an ODRL policy from a template; the access body (regulator) reads, filters, verifies and
 * exports the audit trail and meets the retention floor; the trust-center operator reads the
 * trust center. Screenshots are kept in <E2E_OUTPUT>/screens/.
 */

const SCREENS = `${process.env.E2E_OUTPUT ?? "test-results"}/screens`;
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENS}/governance-${name}.png`, fullPage: true });

test("admin: console, components, directory, credentials and policies", async ({ page }) => {
  test.setTimeout(120_000);
  await signInAs(page, "admin", "/operator");
  await expect(page.getByRole("heading", { name: "Operator console", level: 1 })).toBeVisible();
  await expect(page.getByTestId("stat-components")).toContainText("7 / 7");
  await expect(page.getByTestId("stat-chain")).toContainText("intact");
  await shot(page, "1-admin-console");

  // components: health, topology, a restart and a refused one
  await page
    .getByRole("navigation", { name: "Operator console" })
    .getByRole("link", { name: "Components" })
    .click();
  await expect(page.getByTestId("components").locator("tbody tr")).toHaveCount(7);
  await expect(page.getByTestId("health-connector")).toHaveText("up");
  await expect(page.getByTestId("topology").locator("svg")).toBeVisible();
  await expect(page.getByTestId("edge-identity-hub-issuer")).toHaveCount(1);
  await page.getByRole("button", { name: "Restart Connector (control plane)" }).click();
  await expect(page.getByTestId("outcome")).toContainText("restarted: embedded local dataspace restarted");
  await expect(page.getByTestId("health-connector")).toHaveText("up");
  await shot(page, "2-admin-components");
  await page.getByTestId("node-graph-store").click();
  await expect(page).toHaveURL(/\/components\/graph-store$/);
  await expect(page.getByTestId("observed")).toContainText("ping answered");
  await page.getByRole("button", { name: /Restart graph store/ }).click();
  await expect(page.getByTestId("outcome")).toContainText(
    "Cannot restart graph-store: the embedded graph store shares the hub's SQLite connection",
  );
  await expect(page.getByTestId("last-restart")).toContainText("refused");
  await shot(page, "3-admin-diagnosis");

  // the participant directory: a bad DID is refused, a good one added and removed; seeded ones stay
  await page.goto("/directory");
  const form = page.getByTestId("directory-form");
  await form.getByLabel(/Display name/).fill("Ziekenhuis Voorbeeld");
  await form.getByLabel(/^DID/).fill("did:web:localhost_:x");
  await form.getByRole("button", { name: "Add to the directory" }).click();
  await expect(page.getByTestId("outcome")).toContainText("did:web needs a domain name");
  await form.getByLabel(/Display name/).fill("Ziekenhuis Voorbeeld");
  await form.getByLabel(/^DID/).fill("did:web:ziekenhuis.example.nl:participant");
  await form.getByLabel("Country").fill("nl");
  await form.getByRole("button", { name: "Add to the directory" }).click();
  await expect(page.getByTestId("outcome")).toContainText("Added Ziekenhuis Voorbeeld");
  await expect(page.getByTestId("entry-ziekenhuis-voorbeeld")).toContainText("NL");
  await expect(page.getByTestId("entry-lmc").getByRole("button")).toHaveCount(0);
  await page.getByRole("link", { name: "Check federated discovery" }).click();
  await expect(page.getByTestId("discovery")).toContainText("8 datasets with 8 offers");
  await shot(page, "4-admin-directory");
  await page.getByRole("button", { name: "Remove Ziekenhuis Voorbeeld" }).click();
  await expect(page.getByTestId("outcome")).toContainText(
    "Removed did:web:ziekenhuis.example.nl:participant",
  );

  // credentials: request a data quality label for Limburg Medical Centre, then revoke it
  await page.goto("/credentials");
  const request = page.getByTestId("request-form");
  await request.getByLabel("Participant").selectOption("lmc");
  await request.getByLabel("Credential").selectOption("DataQualityLabelCredential");
  await request.getByRole("button", { name: "Request credential" }).click();
  await expect(page.getByTestId("outcome")).toContainText(
    "Requested a Data quality and utility label for lmc",
  );
  const label = page.locator('tr[data-type="DataQualityLabelCredential"]');
  await expect(async () => {
    await page.reload();
    await expect(label).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(label.getByTestId("credential-status")).toHaveText("valid");
  await label.getByRole("link", { name: "Revoke…" }).click();
  await label.getByLabel("Revoke for good").check();
  await label.getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("outcome")).toContainText("verification now fails");
  await expect(label.getByTestId("credential-status")).toHaveText("revoked");
  await label.locator("summary").click();
  await expect(label).toContainText("revoked: bit");
  await shot(page, "5-admin-credential-revoked");

  // policies: from the scientific research template, a broken JSON is caught as one types, then saved
  await page.goto("/policies?participant=lmc");
  await page.getByRole("link", { name: "Use the template Scientific research" }).click();
  const editor = page.getByTestId("policy-editor");
  const text = editor.locator("textarea");
  const template = await text.inputValue();
  await text.fill(
    template.replace('"offer-scientific-research"', '"offer-e2e-research"').replace('"isAnyOf"', '"equals"'),
  );
  await expect(page.getByTestId("policy-validation")).toContainText('"equals" is not an ODRL 2.2 operator');
  await shot(page, "6-admin-policy-invalid");
  await text.fill(template.replace('"offer-scientific-research"', '"offer-e2e-research"'));
  await expect(page.getByTestId("policy-validation")).toContainText("Valid ODRL 2.2 Offer");
  await editor.getByRole("button", { name: "Create and push to the connector" }).click();
  await expect(page.getByTestId("outcome")).toContainText("Saved offer-e2e-research");
  await expect(page.getByTestId("policy-offer-e2e-research")).toContainText("in-sync");
  await page.getByTestId("policy-offer-e2e-research").getByRole("link", { name: "Duplicate" }).click();
  await expect(text).toHaveValue(/"offer-e2e-research-copy"/);
  await shot(page, "7-admin-policies");
  await page.getByRole("link", { name: "Delete offer-e2e-research" }).click();
  await page.getByTestId("policy-offer-e2e-research").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByTestId("outcome")).toContainText("Deleted offer-e2e-research");
  await expect(page.getByTestId("policy-offer-e2e-research")).toHaveCount(0);
});

test("regulator: audit trail with filters, tabs, chain verification, CSV export and the retention floor", async ({
  page,
}) => {
  test.setTimeout(90_000);
  // the regulator's day starts at the access body's work queue (which also records its register in the trail)
  await signInAs(page, "regulator", "/access-body");
  await page.getByRole("link", { name: "Audit trail" }).click();
  await expect(page.getByRole("heading", { name: "Audit trail", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "Verify the chain" }).click();
  await expect(page.getByTestId("chain")).toContainText("Chain intact");
  await page
    .getByRole("navigation", { name: "Entry kinds" })
    .getByRole("link", { name: "Secondary use", exact: true })
    .click();
  await expect(page).toHaveURL(/tab=secondary-use/);
  const kinds = await page.getByTestId("audit-entries").locator("tbody tr td:nth-child(3)").allInnerTexts();
  expect(kinds.length).toBeGreaterThan(0);
  // the kinds of the tab's retention rule, in words (issue 40: the label catalogue names them)
  const tabKinds = ["access-body", "dataspace", "insight", "federated", "graph", "nlq"].map(auditKindLabel);
  for (const k of kinds) expect(tabKinds).toContain(k.trim());
  await page.getByTestId("audit-filters").getByLabel("Text").fill("permit");
  await page.getByTestId("audit-filters").getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/q=permit/);
  const rows = page.getByTestId("audit-entries").locator("tbody tr");
  await expect(rows.first()).toContainText(/permit/i);
  await shot(page, "8-regulator-audit");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^audit-.*\.csv$/);
  const csv = await (await download.createReadStream()).toArray();
  const content = Buffer.concat(csv as Buffer[]).toString("utf8");
  expect(content.split("\r\n")[0]).toBe("seq,id,timestamp,kind,action,actor,target,outcome,prevHash,hash");
  expect(content).toMatch(/permit/i);

  await page.goto("/audit/retention");
  const consent = page.getByTestId("retention-consent");
  await expect(consent).toContainText("1096 days");
  await expect(consent).toContainText("Art. 9(2)");
  await consent.getByLabel("Days to keep consent entries").fill("30");
  await consent.getByRole("button", { name: "Set the retention of consent" }).click();
  await expect(page.getByTestId("outcome")).toContainText(
    "Retention for consent cannot be shorter than 1096 days",
  );
  await shot(page, "9-regulator-retention-refused");
  await page.getByTestId("retention-consent").getByLabel("Days to keep consent entries").fill("1500");
  await page
    .getByTestId("retention-consent")
    .getByRole("button", { name: "Set the retention of consent" })
    .click();
  await expect(page.getByTestId("outcome")).toContainText("consent entries are now kept 1500 days");
  await expect(page.getByTestId("retention-consent")).toContainText("set by regulator");

  // the access body keeps its own policies and reads everyone's, read only (issue 34); the operator console is not theirs
  await page.goto("/policies");
  await expect(page.getByTestId("policies")).toBeVisible();
  await expect(page.getByRole("link", { name: "New policy" })).toBeVisible();
  await page.goto("/policies?participant=lmc");
  await expect(page.getByTestId("policies-read-only")).toBeVisible();
  await expect(page.getByRole("link", { name: "New policy" })).toHaveCount(0);
  const res = await page.goto("/operator");
  expect(res?.status()).toBe(403);
});

test("trust-center operator: pseudonyms, recognition and processing sessions", async ({ page }) => {
  test.setTimeout(60_000);
  await signInAs(page, "trustcenter", "/trust-center");
  await expect(page.getByRole("heading", { name: "Trust center", level: 1 })).toBeVisible();
  await expect(page.getByTestId("tc-summary")).toContainText("Trust centers3");
  const sessions = page.getByTestId("spe-sessions").locator("tbody tr");
  // one session per issued permit (4 granted and 1 revoked when seeded, more once a journey grants one)
  expect(await sessions.count()).toBeGreaterThanOrEqual(5);
  await expect(page.getByTestId("spe-sessions")).toContainText("k = 5, aggregate outputs only");
  await expect(page.getByTestId("spe-sessions")).toContainText("Terminated");
  await expect(page.getByTestId("pseudonym-domains").locator("tbody tr")).toHaveCount(11);
  await expect(page.getByTestId("recognition")).toContainText("Recognised");
  await expect(page.getByTestId("flows")).toContainText("not covered (pending)");
  await expect(page.getByRole("link", { name: "Trust center" }).first()).toBeVisible();
  await shot(page, "10-trustcenter");
  // no operator console, no audit trail for the trust center
  expect((await page.goto("/audit"))?.status()).toBe(403);
  await page.goto("/credentials");
  await expect(page.getByTestId("credentials")).toContainText("No credentials to show");
});
