import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../server/audit/model";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Every look at an identified record and every refused request is on record (issue 34): the real
 * server, personas signed in through the embedded provider, the audit read from the store.
 */
let server: TestServer;
const who: Record<string, Signed> = {};
let clinicPatient: string;

beforeAll(async () => {
  server = await startTestServer();
  for (const p of ["admin", "clinic", "lmc", "patient1"]) who[p] = await signIn(server.url, p);
  const list = (await (await who.clinic!.api("/api/patient?limit=5")).json()) as { id: string }[];
  clinicPatient = list.find((p) => p.id !== "patient-000001")!.id;
}, 120_000);
afterAll(async () => server?.close());

const entries = async (filter: { kind?: string; actor?: string }) => {
  await server.services.flushReadLogs();
  return server.services.audit.list({ ...filter, limit: 10_000 });
};
const shape = (e: AuditEntry) => ({ action: e.action, actor: e.actor, target: e.target, outcome: e.outcome });

describe("looks at identified records", () => {
  it("puts a data holder's reads of a record (API, page, graph node) on record, one entry per look", async () => {
    for (const path of ["profile", "insights", "research"])
      expect((await who.clinic!.api(`/api/patient/${path}?patientId=${clinicPatient}`)).status).toBe(200);
    expect((await who.clinic!.api(`/patients/${clinicPatient}`)).status).toBe(200);
    expect((await who.clinic!.api(`/api/graph/node?id=${clinicPatient}`)).status).toBe(200);
    expect((await who.clinic!.api("/api/patient?limit=5")).status).toBe(200);
    const mine = (await entries({ kind: "patient", actor: "clinic" })).map(shape);
    for (const action of [
      "patient.profile.read",
      "patient.insights.read",
      "patient.research.read",
      "patient.page.read",
      "graph.node.read",
    ])
      expect(mine).toContainEqual({ action, actor: "clinic", target: clinicPatient, outcome: "success" });
    expect(mine).toContainEqual({
      action: "patient.list.read",
      actor: "clinic",
      target: "holder:alphaklinik-berlin offset 0 limit 5",
      outcome: "success",
    });
  });

  it("puts every identified record a graph sample or neighbourhood shows on record, none a pseudonymised one", async () => {
    for (const p of ["researcher"]) who[p] ??= await signIn(server.url, p);
    const held = new Set(
      ((await (await who.clinic!.api("/api/patient?limit=1000")).json()) as { id: string }[]).map(
        (p) => p.id,
      ),
    );
    expect((await who.clinic!.api("/api/graph?layer=l3&limit=5000")).status).toBe(200);
    expect((await who.clinic!.api(`/graph/expand?id=${clinicPatient}&depth=1`)).status).toBe(200);
    expect((await who.admin!.api("/api/graph/expand?id=patient-000001&depth=1")).status).toBe(200);
    expect((await who.researcher!.api("/api/graph?layer=l3&limit=5000")).status).toBe(200);
    const looks = (await entries({ kind: "patient" })).filter((e) => e.action.startsWith("graph."));
    const sample = looks
      .filter((e) => e.actor === "clinic" && e.action === "graph.read")
      .map((e) => e.target);
    // the clinic's own patients, each once, and no other organisation's (it sees those pseudonymised)
    expect(sample.length).toBeGreaterThan(1);
    expect(new Set(sample).size).toBe(sample.length);
    expect(sample.every((id) => held.has(id))).toBe(true);
    expect(looks.map(shape)).toContainEqual({
      action: "graph.expand.read",
      actor: "clinic",
      target: clinicPatient,
      outcome: "success",
    });
    expect(looks.map(shape)).toContainEqual({
      action: "graph.expand.read",
      actor: "admin",
      target: "patient-000001",
      outcome: "success",
    });
    expect(looks.filter((e) => e.actor === "researcher")).toEqual([]);
  });

  it("puts a refused look at a record on it, and the refusal at the edge", async () => {
    expect((await who.lmc!.api(`/api/patient/profile?patientId=${clinicPatient}`)).status).toBe(403);
    expect((await entries({ kind: "patient", actor: "lmc" })).map(shape)).toContainEqual({
      action: "patient.profile.read",
      actor: "lmc",
      target: clinicPatient,
      outcome: "refused: held by another organisation",
    });
    expect((await entries({ kind: "access", actor: "lmc" })).map(shape)).toContainEqual({
      action: "request.refused",
      actor: "lmc",
      target: "GET /api/patient/profile",
      outcome: "refused (403)",
    });
  });

  it("does not log the patient's own looks, and shows the patient who looked at their record", async () => {
    expect((await who.patient1!.api("/api/patient/profile?patientId=patient-000001")).status).toBe(200);
    expect((await who.admin!.api("/api/patient/profile?patientId=patient-000001")).status).toBe(200);
    expect(await entries({ kind: "patient", actor: "patient1" })).toEqual([]);
    const page = await (await who.patient1!.api("/my-record")).text();
    expect(page).toContain("Who looked at your record");
    const section = page.slice(page.indexOf("Who looked at your record"));
    expect(section).toMatch(/<td>admin<\/td><td>read your record<\/td>/);
  });
});

describe("refused requests", () => {
  it("puts a flood of anonymous 401s on record as two entries per route and minute", async () => {
    const before = (await entries({ kind: "access", actor: "anonymous" })).length;
    for (let i = 0; i < 300; i++)
      expect((await fetch(`${server.url}/api/patient/profile?patientId=x${i}`)).status).toBe(401);
    const after = (await entries({ kind: "access", actor: "anonymous" })).filter(
      (e) => e.target === "GET /api/patient/profile",
    );
    expect(after.length - before).toBeLessThanOrEqual(2);
    expect(after.map(shape)).toContainEqual({
      action: "request.refused",
      actor: "anonymous",
      target: "GET /api/patient/profile",
      outcome: expect.stringMatching(/^refused \(401\)(, 299 more times since .*)?$/),
    });
    // the caller's text (the patient ids it sent) is nowhere in the log
    expect((await entries({})).some((e) => /x\d+/.test(e.target + e.outcome))).toBe(false);
  });

  it("puts a page's refusals on record: the sign-in redirect as 401, a 403", async () => {
    expect((await fetch(`${server.url}/patients/${clinicPatient}`, { redirect: "manual" })).status).toBe(302);
    expect((await who.lmc!.api("/audit")).status).toBe(403);
    const access = (await entries({ kind: "access" })).map(shape);
    expect(access).toContainEqual({
      action: "request.refused",
      actor: "anonymous",
      target: "page /patients",
      outcome: "refused (401)",
    });
    expect(access).toContainEqual({
      action: "request.refused",
      actor: "lmc",
      target: "page /audit",
      outcome: "refused (403)",
    });
  });
});

describe("refusals a page's form shows in place", () => {
  it("are on record as the API's are, with their status: another holder's dataset, a patient's consent, another organisation's credential", async () => {
    who.regulator ??= await signIn(server.url, "regulator");
    const form = (fields: Record<string, string>): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    // the clinic withdraws the LMC's dataset, and revokes a consent of a patient whose record it holds
    const withdraw = await who.clinic!.api("/catalogue/dataset-lmc-ehr", form({ intent: "withdraw" }));
    expect(withdraw.status).toBe(403);
    expect(await withdraw.text()).toContain(
      "Only the data holder that published this dataset, or an operator, may withdraw it",
    );
    const consent = await who.clinic!.api(
      `/patients/${clinicPatient}`,
      form({ intent: "revoke", studyId: "hdab-approval-1" }),
    );
    expect(consent.status).toBe(403);
    expect(await consent.text()).toContain("Only the patient can change their research consent.");
    // the access body revokes a credential the LMC holds
    const lmc = ((await (await who.admin!.api("/api/credentials")).json()) as Record<string, unknown>[]).find(
      (c) => c.participantContextId === "lmc",
    );
    const revoke = await who.regulator!.api(
      "/credentials",
      form({ intent: "revoke", id: String(lmc!.id), confirm: "yes" }),
    );
    expect(revoke.status).toBe(403);
    expect(await revoke.text()).toContain("You may revoke only credentials held by your own organisation");
    const access = (await entries({ kind: "access" })).map(shape);
    for (const [actor, page] of [
      ["clinic", "page /catalogue"],
      ["clinic", "page /patients"],
      ["regulator", "page /credentials"],
    ])
      expect(access).toContainEqual({
        action: "request.refused",
        actor,
        target: page,
        outcome: expect.stringMatching(/^refused \(403\)/),
      });
    // nothing changed
    expect((await (await who.lmc!.api("/api/catalog")).text()).includes("dataset-lmc-ehr")).toBe(true);
  });
});

describe("GET /audit.csv", () => {
  it("writes no text of its query into the log", async () => {
    const planted = "Mallory-was-here";
    const r = await who.admin!.api(`/audit.csv?q=&kind=audit&${planted}=1&note=${planted}`);
    expect(r.status).toBe(200);
    const exports = (await entries({ kind: "audit" })).filter((e) => e.action === "audit.export");
    expect(exports.map((e) => e.target)).toContain("entries filtered by kind");
    expect((await entries({})).some((e) => JSON.stringify(e).includes(planted))).toBe(false);
  });
});
