import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PATIENT1, seededInsight } from "../../tests/support/insight";
import { createPatientService, type PatientService } from "./service";

let insight: Awaited<ReturnType<typeof seededInsight>>;
let patients: PatientService;
beforeAll(async () => {
  insight = await seededInsight(20);
  patients = createPatientService(insight.graph);
});
afterAll(() => insight?.close());

const PATIENT2 = { ...PATIENT1, username: "patient2", sub: "patient2", patientId: "patient-000002" };
const text = (b: unknown) => JSON.stringify(b);

/** the record answers, kept per graph version */
describe("patient record answers", () => {
  it("checks access on every request, also once the record's answer is kept", async () => {
    await patients.profile("patient-000001", PATIENT1);
    await expect(patients.profile("patient-000001", PATIENT2)).rejects.toMatchObject({ status: 403 });
    await expect(patients.insights("patient-000001", PATIENT2)).rejects.toMatchObject({ status: 403 });
    await expect(patients.research(null, PATIENT1)).rejects.toMatchObject({ status: 400 });
  });

  it("shows a write to the graph at the next read", async () => {
    const id = "patient-000001";
    const before = JSON.parse(text(await patients.profile(id, PATIENT1))) as { encounters: unknown[] };
    const encounterId = "encounter-cache-test";
    await insight.graph.mutate(
      [
        {
          op: "createNode",
          node: {
            id: encounterId,
            label: "Encounter",
            layer: "l3",
            properties: { resourceType: "Encounter", periodStart: "1999-01-01" },
          },
        },
        {
          op: "createEdge",
          edge: {
            id: `${id}:HAS_ENCOUNTER:${encounterId}`,
            source: id,
            target: encounterId,
            type: "HAS_ENCOUNTER",
          },
        },
      ],
      { action: "test.encounter", actor: "test", target: id, kind: "graph" },
    );
    const after = JSON.parse(text(await patients.profile(id, PATIENT1))) as {
      encounters: { id: string }[];
    };
    expect(after.encounters.length).toBe(before.encounters.length + 1);
    expect(after.encounters.some((e) => e.id === encounterId)).toBe(true);
    const insights = JSON.parse(text(await patients.insights(id, PATIENT1))) as {
      firstEncounter: string;
    };
    expect(insights.firstEncounter).toBe("1999-01-01");
  });
});

describe("the patient's research programmes", () => {
  it("lists every approved programme, not the first 200, with the patient's consent to one past them", async () => {
    const seeded = await insight.graph.countWhere("HDABApproval");
    const added = Array.from(
      { length: 260 - seeded },
      (_, i) => `approval-many-${String(i).padStart(3, "0")}`,
    );
    await insight.graph.mutate(
      added.map((id) => ({
        op: "createNode" as const,
        node: {
          id,
          label: "HDABApproval",
          layer: "l1" as const,
          properties: { title: `Programme ${id}`, status: "approved" },
        },
      })),
      { action: "test.approvals", actor: "test", target: "approvals", kind: "graph" },
    );
    const last = added[added.length - 1]!;
    await patients.grantConsent({ patientId: "patient-000001", studyId: last }, PATIENT1);

    const programmes = (await patients.research("patient-000001", PATIENT1)) as {
      studyId: string;
      consent: { status: string } | null;
    }[];
    expect(programmes).toHaveLength(260);
    expect(new Set(programmes.map((p) => p.studyId)).size).toBe(260);
    expect(programmes.map((p) => p.studyId)).toEqual(expect.arrayContaining(added));
    expect(programmes.find((p) => p.studyId === last)?.consent?.status).toBe("active");
  });

  it("finds the active consent past 500 earlier ones, for the programme's list and for a second grant", async () => {
    const patientId = "patient-000002";
    const [study] = await insight.graph.findNodes({ label: "HDABApproval", limit: 1 });
    // 510 consents given and revoked earlier (each grant and revocation cycle leaves one)
    const earlier = Array.from({ length: 510 }, (_, i) => `consent-earlier-${String(i).padStart(3, "0")}`);
    await insight.graph.mutate(
      earlier.flatMap((id) => [
        {
          op: "createNode" as const,
          node: {
            id,
            label: "Consent",
            layer: "l3" as const,
            properties: { resourceType: "Consent", status: "inactive", patientId, studyId: study!.id },
          },
        },
        {
          op: "createEdge" as const,
          edge: { id: `has-consent-${id}`, source: patientId, target: id, type: "HAS_CONSENT" },
        },
      ]),
      { action: "test.consents", actor: "test", target: patientId, kind: "consent" },
    );
    const { consentId } = await patients.grantConsent({ patientId, studyId: study!.id }, PATIENT2);
    const programmes = (await patients.research(patientId, PATIENT2)) as {
      studyId: string;
      consent: { status: string; consentId: string } | null;
    }[];
    expect(programmes.find((p) => p.studyId === study!.id)?.consent?.status).toBe("active");
    await expect(patients.grantConsent({ patientId, studyId: study!.id }, PATIENT2)).rejects.toMatchObject({
      status: 409,
    });
    await patients.revokeConsent(patientId, study!.id, PATIENT2);
    const after = (await patients.research(patientId, PATIENT2)) as typeof programmes;
    // the consent just revoked, not one of the 510 before it
    expect(after.find((p) => p.studyId === study!.id)?.consent).toMatchObject({
      consentId,
      status: "revoked",
    });
  });
});
