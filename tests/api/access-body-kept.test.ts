import { describe, expect, it } from "vitest";
import { type Json, accessBodyHarness } from "./access-body.support";

/**
 * The access body's read routes answer from answers kept per version of their inputs (the route
 * table's `keep`, server/http/kept): over HTTP, each caller gets its own answer whoever asked first,
 * and a write through the server (an application, a completeness decision, a clock event) shows in
 * every read at once.
 */
const { get, post } = accessBodyHarness(["regulator", "researcher", "admin", "clinic"]);

const ids = (list: Json[]) => list.map((a: Json) => a.id);

describe("the access body's kept answers over HTTP", () => {
  it("answer each caller its own, whoever asked first", async () => {
    // the overseers first, so that a key without the caller would hand their answers on
    const all = await get("regulator", "/api/compliance/applications");
    await get("admin", "/api/compliance");
    const own = await get("researcher", "/api/compliance/applications");
    expect(own.status).toBe(200);
    expect(new Set(own.body.map((a: Json) => a.organisation))).toEqual(new Set(["PharmaCo Research AG"]));
    expect(all.body.length).toBeGreaterThan(own.body.length);
    const mine = await get("researcher", "/api/compliance");
    expect(mine.body.participants.map((p: Json) => p.displayName)).toEqual(["PharmaCo Research AG"]);
    expect(mine.body.chains).toBeUndefined();
    const holder = await get("clinic", "/api/compliance");
    expect(holder.body.participants.map((p: Json) => p.displayName)).toEqual(["AlphaKlinik Berlin"]);
    const overseer = await get("regulator", "/api/compliance");
    expect(overseer.body.chains.length).toBeGreaterThan(0);
    // asked again: the same answer but for the time of the read
    const again = await get("researcher", "/api/compliance/applications");
    expect(again.text).toBe(own.text);
    expect(again.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("show a write through the server at the next read", async () => {
    const report = async () =>
      (await get("regulator", "/api/activity-report?from=2020-01-01&to=2030-12-31")).body;
    const before = {
      list: await get("regulator", "/api/compliance/applications"),
      report: await report(),
      register: await get("researcher", "/api/permits"),
      compliance: await get("admin", "/api/compliance"),
    };
    const created = await post("researcher", "/api/compliance/applications", {
      title: "Kept answers over HTTP",
      summary: "An application the kept answers must show at once.",
      purpose: "scientificResearch",
      datasets: ["dataset-alphaklinik-respiratory"],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(ids(before.list.body)).not.toContain(id);
    expect(ids((await get("regulator", "/api/compliance/applications")).body)).toContain(id);
    expect(ids((await get("researcher", "/api/compliance/applications")).body)).toContain(id);
    expect(ids((await get("researcher", "/api/permits")).body.applications)).toContain(id);
    expect(before.register.body.applications.map((a: Json) => a.id)).not.toContain(id);
    const chains = (await get("admin", "/api/compliance")).body.chains;
    expect(chains.map((c: Json) => c.application?.id)).toContain(id);
    expect(before.compliance.body.chains.map((c: Json) => c.application?.id)).not.toContain(id);
    expect((await report()).applications.received).toBe(before.report.applications.received + 1);

    // the completeness decision starts the clock, a clock event pauses it: both seen at once
    const list = async () =>
      (await get("regulator", "/api/compliance/applications")).body.find((a: Json) => a.id === id);
    expect((await list()).clockView.state).toBe("NOT_STARTED");
    await post("regulator", "/api/compliance/applications/complete", { applicationId: id, complete: true });
    expect((await list()).clockView.state).toBe("RUNNING");
    const paused = await post("regulator", "/api/compliance/applications/clock", {
      applicationId: id,
      event: "pause",
      reason: "waiting for the ethics committee",
    });
    expect(paused.status).toBe(200);
    expect((await list()).clockView).toEqual(paused.body.clockView);
    expect((await list()).clockView.state).toBe("PAUSED");
  });
});
