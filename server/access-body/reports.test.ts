import { describe, expect, it } from "vitest";
import { reportCsv, reportHtml } from "./report";
import { regulator, researcher, admin, setup } from "../../tests/support/access-body";

describe("access-body service", () => {
  it("reports decision times that agree with the records, as JSON, CSV and HTML", async () => {
    const { ab, setNow } = await setup();
    const app = await ab.submitApplication(
      {
        title: "T",
        summary: "S",
        purpose: "scientificResearch",
        datasets: ["dataset-alphaklinik-respiratory"],
      },
      researcher,
    );
    await ab.decideCompleteness({ applicationId: app.id, complete: true }, regulator);
    setNow("2026-11-20T09:00:00+01:00");
    const ir = await ab.requestInformation({ applicationId: app.id, questions: "Q" }, regulator);
    setNow("2026-11-27T09:00:00+01:00");
    await ab.answerInformationRequest(
      { informationRequestId: ir.informationRequest.id, answer: "A" },
      researcher,
    );
    setNow("2026-12-21T09:00:00+01:00");
    await ab.issuePermit(
      { applicationId: app.id, durationMonths: 6, conditions: ["c"], secureProcessingEnvironment: "SPE" },
      regulator,
    );
    const r = await ab.activityReport({ from: "2025-01-01", to: "2026-12-31" });
    const mine = r.decisionTimes.items.find((d) => d.applicationId === app.id)!;
    const rec = await ab.getApplication(app.id, admin);
    expect(mine).toMatchObject({
      startDate: "2026-11-16",
      decisionDate: "2026-12-21",
      pausedDays: 7,
      elapsedDays: 35 - 7,
      metDeadline: true,
      deadlineDate: rec.clockView.deadlineDate,
    });
    expect(rec.clockView.elapsedDays).toBe(mine.elapsedDays);
    const seeded = r.decisionTimes.items.find((d) => d.applicationId.startsWith("DAA-2025"))!;
    expect(seeded).toMatchObject({
      startDate: "2025-03-03",
      decisionDate: "2025-03-17",
      elapsedDays: 14,
      metDeadline: true,
    });
    expect(r.decisionTimes.count).toBe(r.decisionTimes.items.length);
    expect(r.permits.byPurpose.find((p) => p.purpose === "scientificResearch")!.count).toBe(2);
    expect(reportCsv(r)).toContain(
      `decisionTime,${app.id},PharmaCo Research AG,scientificResearch,GRANTED,2026-11-16,2026-12-21,28,7,0,`,
    );
    expect(reportHtml(r)).toContain("<svg");
  });

  it("publishes nothing personal in the register and computes the public information", async () => {
    const { ab } = await setup();
    await ab.submitApplication(
      {
        title: "Public title",
        summary: "Secret intended use by Dr. Lukas Schmidt",
        purpose: "scientificResearch",
        datasets: ["dataset-alphaklinik-diabetes"],
      },
      researcher,
    );
    const text = JSON.stringify(await ab.register());
    expect(text).toContain("Public title");
    for (const s of ["Lukas Schmidt", "Secret intended use", "researcher", "@", "submittedBy", "seed"])
      expect(text).not.toContain(s);
    const info = await ab.information();
    expect(info.purposes).toHaveLength(6);
    expect(info.permitsIssued.total).toBe((await ab.listPermits(admin)).length);
    expect(info.statutoryPeriods.find((p) => p.id === "applicationDecision")).toMatchObject({
      amount: 3,
      unit: "months",
      article: "Art. 68(4)",
    });
  });
});
