import { expect, test, type Page } from "@playwright/test";
import { signInAs } from "./support";

/**
 * Data minimisation by role in Chromium (issue 11; README "What each role sees"): the researcher,
 * the regulator and the trust center use the graph explorer (search a seeded family name, open
 * patient nodes), ask a question, open analytics, cohorts and their home — and no page shows a
 * seeded person's name, birth date or FHIR resource id. The patient, the clinic and the operator
 * still see what they should. The seeded people are read from the store (the operator's
 * /api/patient and graph).
 */

// a slow, shared machine: the explorer draws 1000 nodes per visit
test.describe.configure({ timeout: 240_000 });

const PV =
  "Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?";

interface Person {
  id: string;
  name: string;
  family: string;
  marks: string[];
}
let people: Person[] = [];

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signInAs(page, "admin", "/");
  const list = (await (await page.request.get("/api/patient?limit=1000")).json()) as {
    id: string;
    name?: string;
    birthDate?: string;
    resourceId?: string;
  }[];
  // birth dates that are also days of care are not distinctive (a visit on that day)
  const l3 = (await (await page.request.get("/api/graph?layer=l3&limit=5000")).json()) as {
    nodes: { label: string; properties: Record<string, unknown> }[];
  };
  const careDates = new Set<string>();
  for (const n of l3.nodes)
    if (n.label !== "Patient")
      for (const v of Object.values(n.properties))
        if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v)) careDates.add(v.slice(0, 10));
  const count = new Map<string, number>();
  for (const p of list) for (const m of [p.name, p.birthDate]) if (m) count.set(m, (count.get(m) ?? 0) + 1);
  people = list.map((p) => ({
    id: p.id,
    name: p.name ?? "",
    family: (p.name ?? "").split(" ").slice(1).join(" "),
    marks: [
      p.name && count.get(p.name) === 1 ? p.name : "",
      p.resourceId ?? "",
      p.birthDate && count.get(p.birthDate) === 1 && !careDates.has(p.birthDate) ? p.birthDate : "",
    ].filter(Boolean),
  }));
  await page.close();
  expect(people.length).toBeGreaterThanOrEqual(200);
});

/** the seeded identities on the page (its text and the data it carries) */
async function identitiesOn(page: Page): Promise<string[]> {
  const html = await page.content();
  const text = await page.locator("body").innerText();
  const found: string[] = [];
  for (const p of people)
    for (const m of p.marks) if (html.includes(m) || text.includes(m)) found.push(`${p.id}: ${m}`);
  return found;
}

for (const persona of ["researcher", "regulator", "trustcenter"]) {
  test(`${persona} sees no seeded identity in the graph, questions, analytics, cohorts or home`, async ({
    page,
  }) => {
    await signInAs(page, persona, "/graph?layer=l3&limit=1000");
    await expect(page.getByTestId("graph-explorer")).toBeVisible();
    // the drawing loads after the page (decision 0027): its nodes are what the search looks through
    await expect(page.getByTestId("graph-canvas")).toHaveAttribute("data-ready", "true");
    expect(await identitiesOn(page)).toEqual([]);

    // the search finds patients by pseudonym only, never by family name
    const maria = people.find((p) => p.id === "patient-000001")!;
    await page.getByTestId("graph-find").fill(maria.family);
    await expect(page.getByTestId("graph-find-result")).toHaveCount(0);
    await page.getByTestId("graph-find").fill("patient-x");
    const results = page.getByTestId("graph-find-result");
    await expect(results.first()).toBeVisible();
    for (let i = 0; i < 2; i++) {
      await page.getByTestId("graph-find").fill("patient-x");
      await results.nth(i).click();
      await expect(page.getByTestId("inspector-id")).toHaveText(/^patient-x[a-z2-7]{12}$/);
      await expect(page.getByTestId("inspector-relationships")).toBeVisible();
      expect(await identitiesOn(page)).toEqual([]);
    }

    for (const path of [
      `/ask?q=${encodeURIComponent(PV)}`,
      "/analytics",
      "/cohorts?condition=38341003&run=1",
      "/",
      "/graph/validate",
      "/graph?focus=patient-000001",
    ]) {
      await page.goto(path);
      if (path.startsWith("/graph?"))
        await expect(page.getByTestId("graph-canvas")).toHaveAttribute("data-ready", "true");
      expect({ path, found: await identitiesOn(page) }).toEqual({ path, found: [] });
    }
  });
}

test("the patient, the holding clinic and the operator still see the identities they may", async ({
  page,
}) => {
  await signInAs(page, "patient1", "/my-record");
  await expect(page.locator("body")).toContainText("Maria Schneider");

  await page.context().clearCookies();
  await signInAs(page, "clinic", "/graph?layer=l3&limit=1000");
  await page.getByTestId("graph-find").fill("Maria Schneider");
  await expect(page.getByTestId("graph-find-result").first()).toContainText("Maria Schneider");
  // Thomas Müller's record is held by Limburg Medical Centre: pseudonymised for AlphaKlinik
  await page.getByTestId("graph-find").fill("Thomas Müller");
  await expect(page.getByTestId("graph-find-result")).toHaveCount(0);

  await page.context().clearCookies();
  await signInAs(page, "admin", "/graph?layer=l3&limit=1000");
  await page.getByTestId("graph-find").fill("Thomas Müller");
  await page.getByTestId("graph-find-result").first().click();
  await expect(page.getByTestId("inspector-id")).toHaveText("patient-000002");
  await expect(page.getByTestId("graph-inspector")).toContainText("Thomas Müller");
});
