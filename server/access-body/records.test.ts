import { describe, expect, it } from "vitest";
import { regulator, researcher, admin, setup, status } from "../../tests/support/access-body";

describe("access-body service", () => {
  it("handles incomplete applications, refusals, withdrawals, data requests and results", async () => {
    const { ab, setNow } = await setup();
    const app = await ab.submitApplication(
      { title: "T", summary: "S", purpose: "publicHealth", datasets: ["dataset-alphaklinik-diabetes"] },
      researcher,
    );
    expect(
      (await status(ab.decideCompleteness({ applicationId: app.id, complete: false }, regulator))).status,
    ).toBe(400);
    const inc = await ab.decideCompleteness(
      { applicationId: app.id, complete: false, missing: ["data management plan"] },
      regulator,
    );
    expect(inc.application).toMatchObject({ state: "INCOMPLETE", completionDueDate: "2026-12-14" });
    expect(inc.informationRequest).toMatchObject({ state: "OPEN", kind: "completeness" });
    setNow("2026-11-20T09:00:00+01:00");
    const sup = await ab.answerInformationRequest(
      { informationRequestId: inc.informationRequest!.id, answer: "plan attached" },
      researcher,
    );
    expect(sup.application).toMatchObject({ state: "RECEIVED", receivedDate: "2026-11-20" });
    const ok = await ab.decideCompleteness({ applicationId: app.id, complete: true }, regulator);
    expect(ok.application.clockView.startDate).toBe("2026-11-20");
    const paused = await ab.clockEvent(
      { applicationId: app.id, event: "pause", reason: "ethics committee" },
      regulator,
    );
    expect(paused.clockView.state).toBe("PAUSED");
    const ext = await ab.clockEvent(
      { applicationId: app.id, event: "extend", months: 2, reason: "complex" },
      regulator,
    );
    expect(ext.clockView.extensionMonths).toBe(2);
    expect(
      (
        await status(
          ab.clockEvent({ applicationId: app.id, event: "extend", months: 1, reason: "again" }, regulator),
        )
      ).status,
    ).toBe(409);
    const resumed = await ab.clockEvent(
      { applicationId: app.id, event: "resume", reason: "opinion received" },
      regulator,
    );
    expect(resumed.clockView.state).toBe("RUNNING");
    const refused = await ab.refuseApplication(
      { applicationId: app.id, decision: "refuse", reasons: "Purpose not covered by Art. 53(1)" },
      regulator,
    );
    expect(refused).toMatchObject({
      state: "REFUSED",
      decision: { outcome: "REFUSED", reasons: "Purpose not covered by Art. 53(1)" },
      clockView: { state: "STOPPED" },
    });
    expect(
      (
        await status(
          ab.withdrawApplication({ applicationId: app.id, action: "withdraw", reason: "late" }, researcher),
        )
      ).body,
    ).toMatchObject({ currentState: "REFUSED" });

    const dr = await ab.submitDataRequest(
      {
        title: "Counts",
        question: "How many?",
        purpose: "officialStatistics",
        datasets: ["dataset-lmc-cardiovascular"],
      },
      researcher,
    );
    expect(dr).toMatchObject({ state: "SUBMITTED", dueDate: "2027-02-22" });
    expect(
      (
        await status(
          ab.decideDataRequest(
            { requestId: dr.id, decision: "answer", answer: { summary: "s", table: [] } },
            regulator,
          ),
        )
      ).status,
    ).toBe(409);
    await ab.decideDataRequest({ requestId: dr.id, decision: "approve" }, regulator);
    expect(
      (
        await status(
          ab.decideDataRequest(
            {
              requestId: dr.id,
              decision: "answer",
              answer: { summary: "s", table: [{ label: "rare", value: 3 }] },
            },
            regulator,
          ),
        )
      ).status,
    ).toBe(400);
    const answered = await ab.decideDataRequest(
      {
        requestId: dr.id,
        decision: "answer",
        answer: { summary: "s", table: [{ label: "all", value: 90 }] },
      },
      regulator,
    );
    expect(answered.state).toBe("ANSWERED");

    const res = await ab.postResult(
      { title: "Paper", summary: "tables", dataRequestId: dr.id, processingCompletedDate: "2026-11-20" },
      researcher,
    );
    expect(res.result).toMatchObject({ state: "DECLARED", publicationDueDate: "2028-05-22" });
    expect(
      (
        await status(
          ab.postResult(
            { resultId: res.result.id, action: "publish", url: "https://x.example/p" },
            researcher,
          ),
        )
      ).status,
    ).toBe(409);
    expect(
      (await status(ab.postResult({ resultId: res.result.id, action: "release", note: "ok" }, researcher)))
        .status,
    ).toBe(403);
    await ab.postResult({ resultId: res.result.id, action: "release", note: "ok" }, regulator);
    expect(
      (
        await ab.postResult(
          { resultId: res.result.id, action: "publish", url: "https://x.example/p" },
          researcher,
        )
      ).result.state,
    ).toBe("PUBLISHED");
  });

  it("expires permits past their end date as an audited system transition", async () => {
    const { ab, setNow } = await setup();
    setNow("2027-03-17T09:00:00+01:00");
    const p = (await ab.listPermits(admin)).find((x) => x.id === "MEDREG-DP-2025-0001")!;
    expect(p.state).toBe("EXPIRED");
    expect((await ab.getPermit(p.id, admin)).history.at(-1)).toMatchObject({
      event: "expire",
      actor: "system (system)",
    });
  });

  it("withdraws the open information request with the application, and with its refusal", async () => {
    const { ab } = await setup();
    const submit = () =>
      ab.submitApplication(
        { title: "T", summary: "S", purpose: "publicHealth", datasets: ["dataset-alphaklinik-diabetes"] },
        researcher,
      );
    const withdrawn = await submit();
    const inc = await ab.decideCompleteness(
      { applicationId: withdrawn.id, complete: false, missing: ["data management plan"] },
      regulator,
    );
    await ab.withdrawApplication(
      { applicationId: withdrawn.id, action: "withdraw", reason: "late" },
      researcher,
    );
    const first = await ab.getInformationRequest(inc.informationRequest!.id, regulator);
    expect(first).toMatchObject({ state: "WITHDRAWN", withdrawal: { reason: "application withdrawn" } });
    expect(first.history.map((h) => h.event)).toEqual(["open", "withdraw"]);

    const refused = await submit();
    const asked = await ab.decideCompleteness(
      { applicationId: refused.id, complete: false, missing: ["ethics approval"] },
      regulator,
    );
    await ab.refuseApplication({ applicationId: refused.id, decision: "refuse", reasons: "no" }, regulator);
    const second = await ab.getInformationRequest(asked.informationRequest!.id, regulator);
    expect(second).toMatchObject({ state: "WITHDRAWN", withdrawal: { reason: "application refused" } });
  });
});
