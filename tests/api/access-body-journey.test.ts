import { describe, expect, it } from "vitest";
import { PERSONAS } from "../../server/auth/personas";
import { type Json, expect409, accessBodyHarness } from "./access-body.support";

/**
 * Black-box tests of the access body's routes (capabilities "access-body" and "compliance") against
 * the real server: every route and method, the roles of the route table, organisation scoping,
 * every kind of illegal transition (409 with currentState and allowedNextStates), the journey of
 * issue 5 over HTTP, the register's privacy, the activity report's formats and its agreement with
 * the records, the compliance summary and the conformance probes.
 *
 * This file: the journey over HTTP and what follows from it: register, public information, activity report, compliance summary, probes.
 */
const { get, post } = accessBodyHarness();

describe("the access body's routes", () => {
  let journeyPermit = "";
  let journeyApp = "";

  it("carry the journey: apply → information request → answer → permit → register → revoke", async () => {
    const created = await post("researcher", "/api/compliance/applications", {
      title: "Readmissions after pneumonia",
      summary: "Readmission rates within 30 days after hospital treatment for pneumonia.",
      purpose: "scientificResearch",
      datasets: ["dataset-alphaklinik-respiratory"],
      durationMonths: 18,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: "RECEIVED",
      organisation: "PharmaCo Research AG",
      clockView: { state: "NOT_STARTED" },
    });
    const id = (journeyApp = created.body.id);

    const complete = await post("regulator", "/api/compliance/applications/complete", {
      applicationId: id,
      complete: true,
    });
    expect(complete.status).toBe(200);
    expect(complete.body.application.clockView).toMatchObject({ state: "RUNNING", periodMonths: 3 });
    expect409(
      await post("regulator", "/api/compliance/applications/complete", { applicationId: id, complete: true }),
      "UNDER_ASSESSMENT",
    );

    const ir = await post("regulator", "/api/compliance/information-requests", {
      applicationId: id,
      questions: "Please send the ethics committee's opinion.",
    });
    expect(ir.status).toBe(201);
    expect(ir.body.application).toMatchObject({
      state: "INFORMATION_REQUESTED",
      clockView: { state: "PAUSED" },
    });
    expect409(
      await post("regulator", "/api/compliance/information-requests", {
        applicationId: id,
        questions: "more",
      }),
      "INFORMATION_REQUESTED",
    );
    // the clock cannot be resumed by hand while the applicant is asked
    expect409(
      await post("regulator", "/api/compliance/applications/clock", {
        applicationId: id,
        event: "resume",
        reason: "r",
      }),
      "PAUSED",
    );
    expect409(
      await post("regulator", "/api/compliance/permits", {
        applicationId: id,
        durationMonths: 12,
        conditions: ["c"],
        secureProcessingEnvironment: "SPE",
      }),
      "INFORMATION_REQUESTED",
    );

    const answer = await post("researcher", "/api/compliance/information-requests/answer", {
      informationRequestId: ir.body.informationRequest.id,
      answer: "The favourable opinion is attached.",
    });
    expect(answer.status).toBe(200);
    expect(answer.body.application).toMatchObject({
      state: "UNDER_ASSESSMENT",
      clockView: { state: "RUNNING" },
    });
    expect409(
      await post("researcher", "/api/compliance/information-requests/answer", {
        informationRequestId: ir.body.informationRequest.id,
        answer: "again",
      }),
      "ANSWERED",
    );

    const extend = await post("regulator", "/api/compliance/applications/clock", {
      applicationId: id,
      event: "extend",
      months: 1,
      reason: "complex linkage",
    });
    expect(extend.body.clockView.extensionMonths).toBe(1);
    expect409(
      await post("regulator", "/api/compliance/applications/clock", {
        applicationId: id,
        event: "extend",
        months: 1,
        reason: "again",
      }),
      "RUNNING",
    );
    expect409(
      await post("regulator", "/api/compliance/applications/clock", {
        applicationId: id,
        event: "resume",
        reason: "not paused",
      }),
      "RUNNING",
    );

    const permit = await post("regulator", "/api/compliance/permits", {
      applicationId: id,
      durationMonths: 12,
      conditions: ["Processing only in the secure processing environment", "No re-identification"],
      secureProcessingEnvironment: "MedReg secure processing environment",
    });
    expect(permit.status).toBe(201);
    expect(permit.body).toMatchObject({ state: "ACTIVE", applicationId: id, durationMonths: 12 });
    journeyPermit = permit.body.id;
    expect409(
      await post("regulator", "/api/compliance/permits", {
        applicationId: id,
        durationMonths: 12,
        conditions: ["c"],
        secureProcessingEnvironment: "SPE",
      }),
      "GRANTED",
    );
    expect409(
      await post("researcher", "/api/compliance/applications", {
        applicationId: id,
        action: "withdraw",
        reason: "late",
      }),
      "GRANTED",
    );

    const reg = await get("researcher", "/api/permits");
    expect(reg.body.permits.find((p: Json) => p.id === journeyPermit)).toMatchObject({
      organisation: "PharmaCo Research AG",
      state: "ACTIVE",
      purpose: "scientificResearch",
    });
    expect(reg.body.applications.find((a: Json) => a.id === id)).toMatchObject({
      decision: "GRANTED",
      permitId: journeyPermit,
    });

    const revoke = await post("regulator", "/api/compliance/permits/revoke", {
      permitId: journeyPermit,
      reason: "Condition 2 breached",
    });
    expect(revoke.status).toBe(200);
    expect(revoke.body.state).toBe("REVOKED");
    expect409(
      await post("regulator", "/api/compliance/permits/revoke", { permitId: journeyPermit, reason: "again" }),
      "REVOKED",
    );
    expect(
      (await get("admin", "/api/permits")).body.permits.find((p: Json) => p.id === journeyPermit),
    ).toMatchObject({ state: "REVOKED", revocationReason: "Condition 2 breached" });

    const detail = await get("researcher", `/api/compliance/applications?id=${id}`);
    expect(detail.body.history.map((h: Json) => h.event)).toEqual([
      "submit",
      "markComplete",
      "requestInformation",
      "informationProvided",
      "clock.extend",
      "grant",
    ]);
    expect(detail.body.permit.history.map((h: Json) => h.event)).toEqual(["issue", "revoke"]);
    const audit = (await get("admin", "/api/admin/audit?limit=500")).body;
    if (Array.isArray(audit))
      expect(audit.some((e: Json) => e.target === journeyPermit && e.action === "permit.revoke")).toBe(true);
  });

  it("publish a register with nothing personal in it", async () => {
    const reg = await get("patient1", "/api/permits");
    expect(reg.status).toBe(200);
    expect(reg.body.permits.length).toBeGreaterThan(0);
    for (const p of PERSONAS) {
      expect(reg.text).not.toContain(p.name);
      expect(reg.text).not.toContain(p.email);
    }
    expect(reg.text).not.toMatch(/"(submittedBy|issuedBy|openedBy|summary|questions|answer|by)"/);
    expect(reg.text).not.toContain("@");
  });

  it("compute the public information from the records", async () => {
    const info = await get(null, "/api/information");
    const reg = await get("admin", "/api/permits");
    expect(info.body.purposes.map((p: Json) => p.point)).toEqual([
      "Art. 53(1)(a)",
      "Art. 53(1)(b)",
      "Art. 53(1)(c)",
      "Art. 53(1)(d)",
      "Art. 53(1)(e)",
      "Art. 53(1)(f)",
    ]);
    expect(info.body.permitsIssued.total).toBe(reg.body.permits.length);
    expect(info.body.howToApply.length).toBeGreaterThan(3);
    // issue 40: citizen-facing text names pages, never an API call ("POST /api/compliance/applications")
    expect(JSON.stringify(info.body)).not.toMatch(/\b(?:GET|POST|PUT|PATCH|DELETE) \/api\//);
    expect(info.body.statutoryPeriods.map((p: Json) => p.article)).toContain("Art. 68(4)");
  });

  it("report the activity (Art. 59) as JSON, CSV and HTML downloads, with decision times that agree with the records", async () => {
    const r = await get("regulator", "/api/activity-report?from=2020-01-01&to=2030-12-31");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      period: { from: "2020-01-01", to: "2030-12-31" },
      article: expect.stringContaining("Art. 59"),
    });
    expect(r.body.decisionTimes.count).toBeGreaterThan(0);
    for (const d of r.body.decisionTimes.items) {
      const rec = (await get("admin", `/api/compliance/applications?id=${d.applicationId}`)).body;
      expect(d).toMatchObject({
        decisionDate: rec.decision.date,
        startDate: rec.clockView.startDate,
        elapsedDays: rec.clockView.elapsedDays,
        deadlineDate: rec.clockView.deadlineDate,
        metDeadline: rec.clockView.metDeadline,
      });
    }
    const granted = r.body.applications.granted;
    expect(r.body.permits.byPurpose.reduce((n: number, p: Json) => n + p.count, 0)).toBe(
      r.body.permits.issued,
    );
    expect(granted).toBeGreaterThan(0);
    expect(r.body.refusals.length).toBe(r.body.applications.refused);

    const csv = await get("admin", "/api/activity-report?from=2020-01-01&to=2030-12-31&format=csv");
    expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe(
      'attachment; filename="activity-report-2020-01-01-2030-12-31.csv"',
    );
    expect(csv.text.split("\r\n")[0]).toBe("section,metric,value");
    expect(csv.text).toContain(`decisionTime,${journeyApp}`);
    const html = await get("regulator", "/api/activity-report?format=html");
    expect(html.headers.get("content-type")).toMatch(/text\/html/);
    expect(html.headers.get("content-disposition")).toMatch(
      /^attachment; filename="activity-report-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.html"$/,
    );
    expect(html.text).toContain("<svg");
  });

  it("summarise compliance per participant (application → approval → permit → contract)", async () => {
    const all = await get("admin", "/api/compliance");
    expect(all.status).toBe(200);
    expect(all.body.participants.length).toBe(5);
    const chains = all.body.chains as Json[];
    expect(
      chains.some((c) => c.status === "complete" && c.contracts.length > 0 && c.approval && c.permit),
    ).toBe(true);
    const revoked = chains.find((c) => c.permit?.id === journeyPermit);
    expect(revoked).toMatchObject({ breaksAt: "permit" });
    expect(["ended", "violation"]).toContain(revoked.status);
    for (const p of all.body.participants) expect(p.dcp.did).toMatch(/^did:web:/);
    const mine = await get("researcher", "/api/compliance");
    expect(mine.body.participants.map((p: Json) => p.displayName)).toEqual(["PharmaCo Research AG"]);
    expect(mine.body.chains).toBeUndefined();
    const holder = await get("clinic", "/api/compliance");
    expect(holder.body.participants.map((p: Json) => p.displayName)).toEqual(["AlphaKlinik Berlin"]);
  });

  it("run conformance probes live, cache them with their time, and re-run on request", async () => {
    const first = await get("admin", "/api/compliance/tck");
    expect(first.status).toBe(200);
    expect(first.body.results.length).toBeGreaterThan(10);
    for (const r of first.body.results) {
      expect(r).toMatchObject({
        id: expect.any(String),
        suite: expect.stringMatching(/^(API|DSP|DCP|EHDS)$/),
        status: expect.stringMatching(/^(pass|fail|skip)$/),
        detail: expect.any(String),
      });
    }
    const byId = Object.fromEntries(first.body.results.map((r: Json) => [r.id, r]));
    for (const id of [
      "api.health",
      "dcp.did-web",
      "ehds.state-machines",
      "ehds.audit",
      "ehds.clock",
      "ehds.permits",
      "ehds.register-public",
      "ehds.information-public",
    ]) {
      expect(byId[id].status, `${id}: ${byId[id].detail}`).toBe("pass");
    }
    const cached = await get("regulator", "/api/compliance/tck");
    expect(cached.body).toMatchObject({ cached: true, ranAt: first.body.ranAt });
    await new Promise((r) => setTimeout(r, 5));
    const rerun = await get("regulator", "/api/compliance/tck?run=1");
    expect(rerun.body.cached).toBe(false);
    expect(rerun.body.ranAt > first.body.ranAt).toBe(true);
    // the access body's session may not call the negotiation route: that probe is skipped, not failed
    expect(
      Object.fromEntries(rerun.body.results.map((r: Json) => [r.id, r.status]))["dsp.negotiation-endpoint"],
    ).not.toBe("fail");
  });
});
