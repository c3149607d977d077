import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pseudonymFor } from "../../server/dataspace/release";
import { linked } from "../../server/graph";
import { grantedPermit, researcherPulls } from "../support/permits-granted";
import { startTestServer, type TestServer } from "../support/server";
import { sendJson, signIn, type Signed } from "../support/signin";

/**
 * A permit the access body grants on an application is a research programme a patient can withdraw from
 * (decision 0119), as a seeded one is, named by the application's title. Through the API only: the researcher applies, the
 * regulator grants, the patient's consent is given and withdrawn on the patient route, and the next pull
 * under the permit leaves that patient out.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type Json = any;

let server: TestServer;
let as: Map<string, Signed>;
const DIABETES = "dataset-alphaklinik-diabetes";
const TITLE = "Kidney function in type 2 diabetes";

beforeAll(async () => {
  server = await startTestServer();
  as = new Map(
    await Promise.all(
      ["researcher", "regulator", "admin"].map(async (u) => [u, await signIn(server.url, u)] as const),
    ),
  );
});
afterAll(async () => server?.close());

const send = (who: string, path: string, body?: unknown) => sendJson(as.get(who)!, path, body);

const pullCohort = () => researcherPulls(server, as.get("researcher")!, "fhir-cohort-bundle");

describe("a permit granted on an application is a programme a patient can withdraw from", () => {
  it("the patient withdraws consent on the patient route; the next pull under the permit leaves their records out", async () => {
    const permitId = await grantedPermit(as.get("researcher")!, as.get("regulator")!, {
      title: TITLE,
      summary: "Decline of kidney function in type 2 diabetes, on pseudonymised records.",
      purpose: "scientificResearch",
      datasets: [DIABETES],
      pseudonymised: true,
    });
    const [first] = await linked(server.services.graph, DIABETES, "INCLUDES", "out", 1);
    const patientId = first.id;
    const secret = server.services.dataspace.runtime.releaseSecret;
    const pseudonym = pseudonymFor(secret, permitId, String(first.properties.resourceId));
    const patientsOf = (got: Json) =>
      got.data.entry
        .filter((e: Json) => e.resource.resourceType === "Patient")
        .map((e: Json) => e.resource.id);
    expect(patientsOf(await pullCohort())).toContain(pseudonym);

    // the patient's programmes list the permit, named by its application's title
    const research = await send("admin", `/api/patient/research?patientId=${patientId}`);
    expect(research.status).toBe(200);
    const programme = research.body.find((s: Json) => s.title === TITLE);
    expect(programme, JSON.stringify(research.body.map((s: Json) => s.title))).toBeDefined();
    expect(programme).toMatchObject({ status: "GRANTED", sponsor: "pharmaco", consent: null });
    const given = await send("admin", "/api/patient/research", { patientId, studyId: programme.studyId });
    expect(given.status).toBe(201);
    const withdrawn = await as
      .get("admin")!
      .api(`/api/patient/research?patientId=${patientId}&studyId=${programme.studyId}`, { method: "DELETE" });
    expect(withdrawn.status).toBe(204);

    const after = patientsOf(await pullCohort());
    expect(after.length).toBeGreaterThan(0);
    expect(after).not.toContain(pseudonym);
  });

  it("a seeded programme is named as the application the access body recorded from its approval, not by a purpose code", async () => {
    const [first] = await linked(server.services.graph, DIABETES, "INCLUDES", "out", 1);
    const research = await send("admin", `/api/patient/research?patientId=${first.id}`);
    const applications = await send("regulator", "/api/compliance/applications");
    const seeded = (applications.body as Json[]).filter((a) => a.seeded === "marketplace");
    expect(seeded.length).toBeGreaterThan(0);
    for (const a of seeded) {
      const programme = research.body.find((s: Json) => s.studyId === a.approvalNodeId);
      expect([programme?.studyId, programme?.title]).toEqual([a.approvalNodeId, a.title]);
    }
    expect(research.body.find((s: Json) => s.studyId === "approval-0001")?.title).toBe(
      "Research: Type 2 diabetes cohort, AlphaKlinik Berlin",
    );
  });
});
