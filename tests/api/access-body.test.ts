import { describe, expect, it } from "vitest";
import { PERSONAS } from "../../server/auth/personas";
import { ROUTES, type HttpMethod } from "../../server/http/route-table";
import { type Json, accessBodyHarness } from "./access-body.support";

/**
 * Black-box tests of the access body's routes (capabilities "access-body" and "compliance") against
 * the real server: every route and method, the roles of the route table, organisation scoping,
 * every kind of illegal transition (409 with currentState and allowedNextStates), the journey of
 * issue 5 over HTTP, the register's privacy, the activity report's formats and its agreement with
 * the records, the compliance summary and the conformance probes.
 *
 * This file: the route table, roles, 400 answers, the seeded work queue and organisation scoping.
 */
const { s, get, post } = accessBodyHarness();

const OURS = ROUTES.filter((r) => r.capability === "access-body" || r.capability === "compliance");

describe("the access body's routes", () => {
  it("are all in the route table, and none answers 404 or 501", async () => {
    expect(OURS.map((r) => r.path).sort()).toEqual(
      [
        "/api/activity-report",
        "/api/compliance",
        "/api/compliance/applications",
        "/api/compliance/applications/clock",
        "/api/compliance/applications/complete",
        "/api/compliance/findings",
        "/api/compliance/findings/close",
        "/api/compliance/findings/respond",
        "/api/compliance/information-requests",
        "/api/compliance/information-requests/answer",
        "/api/compliance/permits",
        "/api/compliance/permits/revoke",
        "/api/compliance/requests",
        "/api/compliance/requests/decide",
        "/api/compliance/results",
        "/api/compliance/tck",
        "/api/information",
        "/api/permits",
      ].sort(),
    );
    for (const r of OURS) {
      for (const [method, spec] of Object.entries(r.methods) as [HttpMethod, { access: Json }][]) {
        const roles: string[] =
          spec.access.kind === "public"
            ? ["DATA_USER"]
            : spec.access.roles === "any"
              ? ["DATA_USER"]
              : spec.access.roles;
        const persona = PERSONAS.find(
          (p) =>
            p.roles.some((x) => roles.includes(x)) &&
            ["regulator", "researcher", "admin", "clinic"].includes(p.username),
        )!;
        const res =
          method === "GET" ? await get(persona.username, r.path) : await post(persona.username, r.path, {});
        expect(
          [404, 501],
          `${method} ${r.path} as ${persona.username}: ${res.text.slice(0, 200)}`,
        ).not.toContain(res.status);
        expect(res.status, `${method} ${r.path}`).toBeLessThan(500);
      }
    }
  });

  it("follow the route table's access for every route, method and persona", async () => {
    for (const r of OURS) {
      for (const [method, spec] of Object.entries(r.methods) as [HttpMethod, { access: Json }][]) {
        const send = (u: string | null) => (method === "GET" ? get(u, r.path) : post(u, r.path, {}));
        const anon = await send(null);
        expect(anon.headers.get("content-type"), `${method} ${r.path}`).toMatch(/application\/json/);
        if (spec.access.kind === "public") expect(anon.status, `${method} ${r.path} anonymous`).toBe(200);
        else expect(anon.status, `${method} ${r.path} anonymous`).toBe(401);
        if (spec.access.kind !== "session") continue;
        for (const username of s.keys()) {
          const persona = PERSONAS.find((p) => p.username === username)!;
          const admitted =
            spec.access.roles === "any" ||
            spec.access.roles.some((x: string) => persona.roles.includes(x as never));
          const res = await send(username);
          if (admitted) {
            expect(res.status, `${method} ${r.path} as ${username}`).not.toBe(401);
            if (res.status === 403)
              expect(res.body.error, `${method} ${r.path} as ${username}`).not.toMatch(
                /your role does not allow/,
              );
          } else {
            expect(res.status, `${method} ${r.path} as ${username}`).toBe(403);
          }
        }
      }
    }
  });

  it("admit the roles of the route table and refuse the others", async () => {
    expect((await get(null, "/api/information")).status).toBe(200);
    expect((await get(null, "/api/permits")).status).toBe(401);
    expect((await get("patient1", "/api/permits")).status).toBe(200);
    expect((await get(null, "/api/compliance/applications")).status).toBe(401);
    expect((await get("clinic", "/api/compliance/applications")).status).toBe(403);
    expect((await get("trustcenter", "/api/compliance/findings")).status).toBe(403);
    expect((await get("clinic", "/api/compliance/findings")).status).toBe(200);
    expect(
      (
        await post("researcher", "/api/compliance/applications/complete", {
          applicationId: "x",
          complete: true,
        })
      ).status,
    ).toBe(403);
    expect((await post("regulator", "/api/compliance/applications", { title: "t" })).status).toBe(403);
    expect((await post("admin", "/api/compliance/permits", {})).status).toBe(403);
    expect((await get("researcher", "/api/activity-report")).status).toBe(403);
    expect((await get("researcher", "/api/compliance/tck")).status).toBe(403);
    expect((await get("patient1", "/api/compliance")).status).toBe(403);
    // within an admitted role, the service checks who may act
    expect(
      (
        await post("regulator", "/api/compliance/results", {
          title: "t",
          summary: "s",
          permitId: "x",
          processingCompletedDate: "2026-01-01",
        })
      ).status,
    ).toBe(403);
  });

  it("answer 400 with a readable message for missing or malformed fields", async () => {
    expect(
      (
        await post("researcher", "/api/compliance/applications", {
          title: "T",
          purpose: "scientificResearch",
          datasets: ["dataset-lmc-omop"],
        })
      ).body.error,
    ).toBe("summary is required");
    expect(
      (
        await post("researcher", "/api/compliance/applications", {
          title: "T",
          summary: "S",
          purpose: "advertising",
          datasets: ["dataset-lmc-omop"],
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await post("researcher", "/api/compliance/applications", {
          title: "T",
          summary: "S",
          purpose: "scientificResearch",
          datasets: ["dataset-none"],
        })
      ).body.error,
    ).toMatch(/Unknown dataset/);
    expect((await post("regulator", "/api/compliance/applications/complete", {})).body.error).toBe(
      "applicationId, complete are required",
    );
    expect(
      (
        await post("regulator", "/api/compliance/applications/clock", {
          applicationId: "DAA-x",
          event: "stop",
          reason: "r",
        })
      ).status,
    ).toBe(400);
    expect(
      (await post("regulator", "/api/compliance/permits/revoke", { permitId: "nope", reason: "r" })).status,
    ).toBe(404);
    expect((await get("regulator", "/api/compliance/applications?id=DAA-1900-0001")).status).toBe(404);
    expect((await get("regulator", "/api/activity-report?from=2026-13-01")).status).toBe(400);
    expect((await get("regulator", "/api/activity-report?format=pdf")).body.error).toBe(
      "format must be json, csv or html",
    );
    const badJson = await s.get("researcher")!.api("/api/compliance/applications", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(badJson.status).toBe(400);
  });

  it("seed a work queue from the marketplace and demo cases", async () => {
    const apps = await get("regulator", "/api/compliance/applications");
    expect(apps.status).toBe(200);
    const states = new Set(apps.body.map((a: Json) => a.state));
    for (const st of ["RECEIVED", "UNDER_ASSESSMENT", "INFORMATION_REQUESTED", "INCOMPLETE", "GRANTED"])
      expect(states.has(st), st).toBe(true);
    expect(
      apps.body.some((a: Json) => a.seeded === "marketplace" && a.approvalNodeId?.startsWith("approval-")),
    ).toBe(true);
    for (const path of [
      "/api/compliance/information-requests",
      "/api/compliance/requests",
      "/api/compliance/findings",
      "/api/compliance/results",
    ]) {
      const r = await get("admin", path);
      expect(r.status, path).toBe(200);
      expect(r.body.length, path).toBeGreaterThan(0);
    }
  });

  it("answer one page of the applications with limit and offset (without them the whole list), scoped as the list", async () => {
    const all = (await get("regulator", "/api/compliance/applications")).body as Json[];
    expect(all.length).toBeGreaterThan(3);
    const ids = (r: { body: Json[] }) => r.body.map((a: Json) => a.id);
    const first = await get("regulator", "/api/compliance/applications?limit=2");
    expect(ids(first)).toEqual(all.slice(0, 2).map((a) => a.id));
    const next = await get("regulator", "/api/compliance/applications?limit=2&offset=2");
    expect(ids(next)).toEqual(all.slice(2, 4).map((a) => a.id));
    expect(ids(await get("regulator", "/api/compliance/applications?offset=1"))).toEqual(
      all.slice(1).map((a) => a.id),
    );
    const received = all.filter((a) => a.state === "RECEIVED");
    expect(ids(await get("regulator", "/api/compliance/applications?state=RECEIVED&limit=1"))).toEqual([
      received[0].id,
    ]);
    const mine = (await get("researcher", "/api/compliance/applications")).body as Json[];
    expect(ids(await get("researcher", "/api/compliance/applications?limit=1&offset=1"))).toEqual([
      mine[1].id,
    ]);
    for (const q of ["limit=0", "limit=-1", "limit=abc", "limit=1001", "offset=-1", "offset=x"]) {
      const bad = await get("regulator", `/api/compliance/applications?${q}`);
      expect(bad.status, q).toBe(400);
      expect(bad.body.error, q).toMatch(/^(limit|offset) must be /);
    }
  });

  it("scope data users to their own organisation", async () => {
    const all = (await get("admin", "/api/compliance/applications")).body as Json[];
    const mine = (await get("researcher", "/api/compliance/applications")).body as Json[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(all.length);
    expect(mine.every((a) => a.organisation === "PharmaCo Research AG")).toBe(true);
    const other = all.find((a) => a.organisation !== "PharmaCo Research AG")!;
    // a read and a write answer as for an unknown id (issue 34; decision 0094)
    expect((await get("researcher", `/api/compliance/applications?id=${other.id}`)).status).toBe(404);
    const withdraw = await post("researcher", "/api/compliance/applications", {
      applicationId: other.id,
      action: "withdraw",
      reason: "x",
    });
    expect([withdraw.status, withdraw.body.error]).toEqual([404, `Application ${other.id} not found`]);
    // the access body asks another organisation's applicant (the seeded ones are PharmaCo's)
    let opened = 0;
    for (const a of all.filter((x) => x.organisation !== "PharmaCo Research AG")) {
      const res = await post("regulator", "/api/compliance/information-requests", {
        applicationId: a.id,
        questions: "Which safeguards?",
      });
      if (res.status === 201) opened++;
      if (opened) break;
    }
    expect(opened, "an information request to another organisation").toBe(1);
    const otherIr = ((await get("admin", "/api/compliance/information-requests")).body as Json[]).find(
      (i) => i.organisation !== "PharmaCo Research AG",
    );
    expect(otherIr, "another organisation's information request").toBeDefined();
    const read = await get("researcher", `/api/compliance/information-requests?id=${String(otherIr!.id)}`);
    const answer = await post("researcher", "/api/compliance/information-requests/answer", {
      informationRequestId: otherIr!.id,
      answer: "a",
    });
    const unknown = await post("researcher", "/api/compliance/information-requests/answer", {
      informationRequestId: "IR-2026-9999",
      answer: "a",
    });
    expect([read.status, answer.status, unknown.status]).toEqual([404, 404, 404]);
    expect([read.body.error, answer.body.error]).toEqual([
      `Information request ${String(otherIr!.id)} not found`,
      `Information request ${String(otherIr!.id)} not found`,
    ]);
    expect(unknown.body.error).toBe("Information request IR-2026-9999 not found");
    for (const path of [
      "/api/compliance/information-requests",
      "/api/compliance/requests",
      "/api/compliance/results",
      "/api/compliance/findings",
    ]) {
      const rows = (await get("researcher", path)).body as Json[];
      expect(
        rows.every((r) => r.organisation === "PharmaCo Research AG"),
        path,
      ).toBe(true);
    }
    const holder = (await get("clinic", "/api/compliance/findings")).body as Json[];
    expect(holder.every((f) => f.organisation === "AlphaKlinik Berlin")).toBe(true);
  });
});
