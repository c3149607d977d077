import { describe, expect, it } from "vitest";
import { type Json, expect409, accessBodyHarness } from "./access-body.support";

/**
 * Black-box tests of the access body's routes (capabilities "access-body" and "compliance") against
 * the real server: every route and method, the roles of the route table, organisation scoping,
 * every kind of illegal transition (409 with currentState and allowedNextStates), the journey of
 * issue 5 over HTTP, the register's privacy, the activity report's formats and its agreement with
 * the records, the compliance summary and the conformance probes.
 *
 * This file: illegal transitions (409).
 */
const { get, post } = accessBodyHarness();

describe("the access body's routes", () => {
  it("refuse illegal transitions of findings, data requests, results and incomplete applications with 409", async () => {
    const f = await post("regulator", "/api/compliance/findings", {
      organisation: "AlphaKlinik Berlin",
      subjectRole: "DATA_HOLDER",
      title: "Late data",
      description: "Data arrived late",
      severity: "low",
    });
    expect(f.status).toBe(201);
    // a finding about an organisation the access body does not supervise is refused and not stored
    const before = (await get("regulator", "/api/compliance/findings")).body.length;
    const nowhere = await post("regulator", "/api/compliance/findings", {
      organisation: "No Such Org",
      subjectRole: "DATA_USER",
      title: "t",
      description: "d",
    });
    expect([nowhere.status, nowhere.body.error]).toEqual([
      400,
      'organisation: must be an organisation the access body supervises (AlphaKlinik Berlin, Limburg Medical Centre, PharmaCo Research AG, Institut de Recherche Santé): "No Such Org" is not',
    ]);
    expect((await get("regulator", "/api/compliance/findings")).body.length).toBe(before);
    // another organisation's finding: the 404 of an unknown id (decision 0094)
    const foreign = await post("researcher", "/api/compliance/findings/respond", {
      findingId: f.body.id,
      response: "not mine",
    });
    expect([foreign.status, foreign.body.error]).toEqual([404, `Finding ${String(f.body.id)} not found`]);
    expect(
      (await post("clinic", "/api/compliance/findings/respond", { findingId: f.body.id, response: "Fixed" }))
        .body.state,
    ).toBe("RESPONDED");
    expect409(
      await post("clinic", "/api/compliance/findings/respond", { findingId: f.body.id, response: "again" }),
      "RESPONDED",
    );
    expect(
      (
        await post("regulator", "/api/compliance/findings/close", {
          findingId: f.body.id,
          outcome: "resolved",
          note: "ok",
        })
      ).body.state,
    ).toBe("CLOSED");
    expect409(
      await post("regulator", "/api/compliance/findings/close", {
        findingId: f.body.id,
        outcome: "resolved",
        note: "again",
      }),
      "CLOSED",
    );

    const dr = await post("researcher", "/api/compliance/requests", {
      title: "Counts",
      question: "How many patients?",
      purpose: "officialStatistics",
      datasets: ["dataset-lmc-omop"],
    });
    expect(dr.status).toBe(201);
    expect409(
      await post("regulator", "/api/compliance/requests/decide", {
        requestId: dr.body.id,
        decision: "answer",
        answer: { summary: "s", table: [] },
      }),
      "SUBMITTED",
    );
    expect(
      (
        await post("regulator", "/api/compliance/requests/decide", {
          requestId: dr.body.id,
          decision: "approve",
        })
      ).body.state,
    ).toBe("APPROVED");
    expect(
      (
        await post("regulator", "/api/compliance/requests/decide", {
          requestId: dr.body.id,
          decision: "answer",
          answer: { summary: "s", table: [{ label: "rare", value: 2 }] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await post("regulator", "/api/compliance/requests/decide", {
          requestId: dr.body.id,
          decision: "answer",
          answer: { summary: "s", table: [{ label: "all", value: 40 }] },
        })
      ).body.state,
    ).toBe("ANSWERED");
    expect409(
      await post("researcher", "/api/compliance/requests", {
        requestId: dr.body.id,
        action: "withdraw",
        reason: "x",
      }),
      "ANSWERED",
    );

    const res = await post("researcher", "/api/compliance/results", {
      title: "Counts paper",
      summary: "tables",
      dataRequestId: dr.body.id,
      processingCompletedDate: "2026-11-01",
    });
    expect(res.status).toBe(201);
    expect409(
      await post("researcher", "/api/compliance/results", {
        resultId: res.body.id,
        action: "publish",
        url: "https://pharmaco.example/p",
      }),
      "DECLARED",
    );
    expect(
      (
        await post("regulator", "/api/compliance/results", {
          resultId: res.body.id,
          action: "reject",
          note: "small cells",
        })
      ).body.state,
    ).toBe("REJECTED");
    expect(
      (
        await post("researcher", "/api/compliance/results", {
          resultId: res.body.id,
          action: "resubmit",
          summary: "aggregated",
        })
      ).body.state,
    ).toBe("DECLARED");
    expect(
      (
        await post("regulator", "/api/compliance/results", {
          resultId: res.body.id,
          action: "release",
          note: "ok",
        })
      ).body.state,
    ).toBe("RELEASED");
    expect(
      (
        await post("researcher", "/api/compliance/results", {
          resultId: res.body.id,
          action: "publish",
          url: "https://pharmaco.example/p",
        })
      ).body.state,
    ).toBe("PUBLISHED");
    expect409(
      await post("regulator", "/api/compliance/results", {
        resultId: res.body.id,
        action: "release",
        note: "again",
      }),
      "PUBLISHED",
    );

    const app = await post("researcher", "/api/compliance/applications", {
      title: "Incomplete",
      summary: "S",
      purpose: "publicHealth",
      datasets: ["dataset-lmc-omop"],
    });
    const inc = await post("regulator", "/api/compliance/applications/complete", {
      applicationId: app.body.id,
      complete: false,
      missing: ["data management plan"],
    });
    expect(inc.body.application.state).toBe("INCOMPLETE");
    expect409(
      await post("regulator", "/api/compliance/applications/clock", {
        applicationId: app.body.id,
        event: "pause",
        reason: "r",
      }),
      "NOT_STARTED",
    );
    expect409(
      await post("regulator", "/api/compliance/applications/complete", {
        applicationId: app.body.id,
        complete: true,
      }),
      "INCOMPLETE",
    );
    const refused = await post("regulator", "/api/compliance/permits", {
      applicationId: app.body.id,
      decision: "refuse",
      reasons: "Not completed within four weeks",
    });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      state: "REFUSED",
      decision: { reasons: "Not completed within four weeks" },
    });
    expect(
      (await get("researcher", `/api/compliance/information-requests?id=${inc.body.informationRequest.id}`))
        .body.state,
    ).toBe("WITHDRAWN");
    const reg = (await get("researcher", "/api/permits")).body;
    expect(reg.applications.find((a: Json) => a.id === app.body.id)).toMatchObject({
      decision: "REFUSED",
      refusalReasons: "Not completed within four weeks",
    });
  });
});
