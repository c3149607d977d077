import { describe, expect, it } from "vitest";
import type { SessionUser } from "../auth/user";
import { userOf, regulator, researcher, admin, setup, status } from "../../tests/support/access-body";

const clinic = userOf("clinic");

/** a second data user of another organisation */
const irsUser: SessionUser = {
  sub: "irs",
  username: "irs-user",
  name: "Someone Else",
  roles: ["DATA_USER"],
  organisation: "Institut de Recherche Santé",
  participantDid: "did:web:irs.fr:research",
};

describe("access-body service", () => {
  it("seeds from the marketplace approvals and its own demo cases, once and deterministically", async () => {
    const a = await setup();
    const b = await setup();
    const appsA = await a.ab.listApplications(admin);
    const appsB = await b.ab.listApplications(admin);
    expect(appsA.map((x) => [x.id, x.state, x.title])).toEqual(appsB.map((x) => [x.id, x.state, x.title]));
    const fromMarket = appsA.filter((x) => x.seeded === "marketplace");
    expect(fromMarket.map((x) => x.state).sort()).toEqual(["GRANTED", "UNDER_ASSESSMENT"]);
    const permits = await a.ab.listPermits(admin);
    expect(permits.find((p) => p.id === "MEDREG-DP-2025-0001")).toMatchObject({
      state: "ACTIVE",
      contractIds: ["contract-0001"],
      organisation: "PharmaCo Research AG",
    });
    // demo cases cover every waiting state of the queue
    const states = new Set(appsA.map((x) => x.state));
    for (const s of ["RECEIVED", "UNDER_ASSESSMENT", "INFORMATION_REQUESTED", "INCOMPLETE"])
      expect(states.has(s)).toBe(true);
    const again = await a.ab.listApplications(admin);
    expect(again.length).toBe(appsA.length);
    // the queue is sorted by deadline
    const q = await a.ab.workQueue();
    const keys = q.items.map((i) => i.sortDate);
    expect([...keys].sort()).toEqual(keys);
    expect(q.items.some((i) => i.paused)).toBe(true);
  });

  it("runs the journey of the issue: apply, ask, answer, grant, publish, revoke — with history and audit", async () => {
    const { ab, setNow, graph, audit } = await setup();
    const app = await ab.submitApplication(
      {
        title: "Respiratory readmissions",
        summary: "Readmissions after pneumonia",
        purpose: "scientificResearch",
        datasets: ["dataset-alphaklinik-respiratory"],
      },
      researcher,
    );
    expect(app).toMatchObject({
      state: "RECEIVED",
      organisation: "PharmaCo Research AG",
      clockView: { state: "NOT_STARTED" },
    });
    setNow("2026-11-17T10:00:00+01:00");
    const complete = await ab.decideCompleteness({ applicationId: app.id, complete: true }, regulator);
    expect(complete.application.clockView).toMatchObject({
      state: "RUNNING",
      startDate: "2026-11-16",
      deadlineDate: "2027-02-16",
    });
    setNow("2026-11-20T10:00:00+01:00");
    const asked = await ab.requestInformation(
      { applicationId: app.id, questions: "Please send the ethics opinion" },
      regulator,
    );
    expect(asked.application.state).toBe("INFORMATION_REQUESTED");
    expect(asked.application.clockView.state).toBe("PAUSED");
    // no decision while the applicant is asked
    const blocked = await status(
      ab.issuePermit(
        { applicationId: app.id, durationMonths: 12, conditions: ["x"], secureProcessingEnvironment: "SPE" },
        regulator,
      ),
    );
    expect(blocked).toMatchObject({
      status: 409,
      body: { currentState: "INFORMATION_REQUESTED", allowedNextStates: ["UNDER_ASSESSMENT", "WITHDRAWN"] },
    });
    setNow("2026-11-30T10:00:00+01:00");
    const answered = await ab.answerInformationRequest(
      { informationRequestId: asked.informationRequest.id, answer: "Attached: favourable opinion" },
      researcher,
    );
    expect(answered.application.state).toBe("UNDER_ASSESSMENT");
    expect(answered.application.clockView).toMatchObject({
      state: "RUNNING",
      pausedDays: 10,
      deadlineDate: "2027-02-26",
    });
    setNow("2026-12-10T10:00:00+01:00");
    const permit = await ab.issuePermit(
      {
        applicationId: app.id,
        durationMonths: 12,
        conditions: "Only in the SPE\nNo re-identification",
        secureProcessingEnvironment: "MedReg SPE",
      },
      regulator,
    );
    expect(permit).toMatchObject({
      state: "ACTIVE",
      validFrom: "2026-12-10",
      validUntil: "2027-12-09",
      conditions: ["Only in the SPE", "No re-identification"],
      contractIds: ["contract-0003"],
    });
    const approval = await graph.getNode(permit.approvalNodeId!);
    expect(approval).toMatchObject({
      label: "HDABApproval",
      properties: { status: "GRANTED", permitNumber: permit.id },
    });
    expect((await graph.getNode("contract-0003"))!.properties).toMatchObject({
      status: "active",
      permitStatus: "GRANTED",
    });
    const reg = await ab.register();
    expect(reg.permits.find((p) => p.id === permit.id)).toMatchObject({
      organisation: "PharmaCo Research AG",
      state: "ACTIVE",
    });
    setNow("2026-12-20T10:00:00+01:00");
    const revoked = await ab.revokePermit(
      { permitId: permit.id, reason: "Breach of condition 2" },
      regulator,
    );
    expect(revoked.state).toBe("REVOKED");
    expect((await graph.getNode("contract-0003"))!.properties).toMatchObject({
      status: "suspended",
      permitStatus: "REVOKED",
    });
    expect((await ab.register()).permits.find((p) => p.id === permit.id)).toMatchObject({
      state: "REVOKED",
      revocationReason: "Breach of condition 2",
    });
    // full history, every entry audited
    const detail = await ab.getApplication(app.id, researcher);
    expect(detail.history.map((h) => h.event)).toEqual([
      "submit",
      "markComplete",
      "requestInformation",
      "informationProvided",
      "grant",
    ]);
    expect(detail.permit!.history.map((h) => h.event)).toEqual(["issue", "revoke"]);
    const auditIds = new Set((await audit.list({ kind: "access-body", limit: 10_000 })).map((e) => e.id));
    for (const h of [...detail.history, ...detail.permit!.history, ...detail.informationRequests[0].history])
      expect(auditIds.has(h.auditId!)).toBe(true);
    const twice = await status(ab.revokePermit({ permitId: permit.id, reason: "again" }, regulator));
    expect(twice).toMatchObject({ status: 409, body: { currentState: "REVOKED", allowedNextStates: [] } });
  });

  it("keeps data users to their own organisation and decisions to the access body", async () => {
    const { ab } = await setup();
    const app = await ab.submitApplication(
      { title: "T", summary: "S", purpose: "scientificResearch", datasets: ["dataset-alphaklinik-diabetes"] },
      researcher,
    );
    expect((await ab.listApplications(irsUser)).some((a) => a.id === app.id)).toBe(false);
    expect(
      (await ab.listApplications(researcher)).every((a) => a.organisation === "PharmaCo Research AG"),
    ).toBe(true);
    // a read and a write answer as for an unknown id (issue 34; decision 0094)
    expect((await status(ab.getApplication(app.id, irsUser))).status).toBe(404);
    const withdraw = await status(
      ab.withdrawApplication({ applicationId: app.id, action: "withdraw", reason: "x" }, irsUser),
    );
    expect([withdraw.status, withdraw.body.error]).toEqual([404, `Application ${app.id} not found`]);
    expect(
      (await status(ab.decideCompleteness({ applicationId: app.id, complete: true }, researcher))).status,
    ).toBe(403);
    expect(
      (
        await status(
          ab.submitApplication(
            {
              title: "T",
              summary: "S",
              purpose: "scientificResearch",
              datasets: ["dataset-alphaklinik-diabetes"],
            },
            regulator,
          ),
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await status(
          ab.submitApplication(
            { title: "T", summary: "S", purpose: "scientificResearch", datasets: ["nope"] },
            researcher,
          ),
        )
      ).body.error,
    ).toMatch(/Unknown dataset/);
    expect(
      (
        await status(
          ab.submitApplication({ title: "T", purpose: "scientificResearch", datasets: [] }, researcher),
        )
      ).body.error,
    ).toBe("summary is required");
    expect(
      (
        await status(
          ab.submitApplication(
            { title: "T", summary: "S", purpose: "marketing", datasets: ["dataset-alphaklinik-diabetes"] },
            researcher,
          ),
        )
      ).status,
    ).toBe(400);
    // findings: the holder answers for its own organisation only
    const f = await ab.openFinding(
      {
        organisation: "AlphaKlinik Berlin",
        subjectRole: "DATA_HOLDER",
        title: "Late",
        description: "Late delivery",
      },
      regulator,
    );
    const foreign = await status(ab.respondFinding({ findingId: f.id, response: "no" }, researcher));
    expect([foreign.status, foreign.body.error]).toEqual([404, `Finding ${f.id} not found`]);
    expect((await ab.respondFinding({ findingId: f.id, response: "Fixed" }, clinic)).state).toBe("RESPONDED");
    expect((await ab.listFindings(clinic)).every((x) => x.organisation === "AlphaKlinik Berlin")).toBe(true);
  });
});
