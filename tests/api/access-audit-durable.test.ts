import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_UNAVAILABLE } from "../../server/audit/access-log";
import { SimulatedDevice } from "../support/device";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { pairingCode } from "./patient-app.support";

/**
 * A look at an identified record is answered only once its entry is written (decision 0044, F2 and
 * F5 of the security test): the entry is in the audit table when the answer arrives (no flush), and
 * a look whose entry cannot be written — the audit table locked by another connection past the
 * bounded wait — is refused with 503 and none of the record. SQLite and PostgreSQL (the main thread's
 * batch writer; tests/api/access-audit-kill.test.ts has the built server's thread and a kill).
 */
let server: TestServer;
const who: Record<string, Signed> = {};
let held: string[];

beforeAll(async () => {
  server = await startTestServer({}, { answerCheck: false });
  for (const p of ["clinic", "patient2"]) who[p] = await signIn(server.url, p);
  held = ((await (await who.clinic.api("/api/patient?limit=20")).json()) as { id: string }[])
    .map((p) => p.id)
    .filter((id) => id !== "patient-000001" && id !== "patient-000002");
}, 120_000);
afterAll(async () => server?.close());

/** the audit table as it is now: no flush of any log */
const written = (filter: { actor?: string; target?: string; kind?: string }) =>
  server.services.audit.list({ ...filter, limit: 10_000 });

/** the audit table locked by another connection (a second SQLite connection's BEGIN IMMEDIATE, a PostgreSQL table lock) */
async function lockAudit(): Promise<() => Promise<void>> {
  if (server.services.rel.dialect === "sqlite") {
    const other = new Database(server.services.db.name);
    other.exec("BEGIN IMMEDIATE");
    return async () => {
      other.exec("ROLLBACK");
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: server.services.config.databaseUrl });
  await other.connect();
  await other.query("BEGIN");
  await other.query("LOCK TABLE audit_entries IN EXCLUSIVE MODE");
  return async () => {
    await other.query("ROLLBACK");
    await other.end();
  };
}

describe("a look answered 200", () => {
  it("is in the audit table when the answer arrives: API, page, graph node and sample, list", async () => {
    const [a, b, c, d] = held;
    expect((await who.clinic.api(`/api/patient/profile?patientId=${a}`)).status).toBe(200);
    expect((await written({ actor: "clinic", target: a })).map((e) => e.action)).toEqual([
      "patient.profile.read",
    ]);
    expect((await who.clinic.api(`/patients/${b}`)).status).toBe(200);
    expect((await written({ actor: "clinic", target: b })).map((e) => e.action)).toEqual([
      "patient.page.read",
    ]);
    expect((await who.clinic.api(`/api/graph/node?id=${c}`)).status).toBe(200);
    expect((await written({ actor: "clinic", target: c })).map((e) => e.action)).toEqual(["graph.node.read"]);
    expect((await who.clinic.api(`/api/graph/expand?id=${d}&depth=1`)).status).toBe(200);
    expect((await written({ actor: "clinic", target: d })).map((e) => e.action)).toEqual([
      "graph.expand.read",
    ]);
    expect((await who.clinic.api("/api/patient?limit=3&offset=7")).status).toBe(200);
    expect(
      await written({ actor: "clinic", target: "holder:alphaklinik-berlin offset 7 limit 3" }),
    ).toHaveLength(1);
  });

  it("in the companion app: the record and the observations, by the patient and by a paired device (F5)", async () => {
    expect((await who.patient2.api("/api/patient/app/record")).status).toBe(200);
    const device = await SimulatedDevice.create(server.url, "Durable phone");
    expect((await device.pair((await pairingCode(who.patient2)).code)).status).toBe(201);
    expect((await device.request("GET", "/api/patient/observations?source=self")).status).toBe(200);
    const reads = (await written({ kind: "patient-app", target: "patient-000002" })).map(
      (e) => `${e.actor} ${e.action}`,
    );
    expect(reads).toContain("patient2 patient-app.record.read");
    expect(reads).toContain(`device:${device.accountId} patient-app.observations.read`);
  });

  it("a node of a patient's record (OMOP person, FHIR resource; API and page) names the patient; a data user's pseudonymised look is none", async () => {
    who.researcher ??= await signIn(server.url, "researcher");
    const [g, h, i] = held.slice(6);
    const numberOf = (id: string) => id.slice("patient-".length);
    const own = async (id: string, label: string) =>
      (await server.services.graph.relationships({ id, limit: 200 })).find((r) => r.node.label === label)!
        .node.id;
    const looks: [string, string][] = [
      [`/api/graph/node?id=omop-person-${numberOf(g)}`, g],
      [`/api/graph/node?id=${await own(h, "Encounter")}`, h],
      [`/graph/node?id=${await own(i, "Observation")}`, i],
    ];
    for (const [path, patient] of looks) {
      const answer = await who.clinic.api(path);
      expect(answer.status).toBe(200);
      expect(JSON.stringify(await answer.json())).not.toContain('"error"');
      expect
        .soft(
          (await written({ actor: "clinic", target: patient })).map((e) => e.action),
          path,
        )
        .toEqual(["graph.node.read"]);
    }
    // the same kind of node for a data user: pseudonymised, no look at a person
    const sample = (await (await who.researcher.api("/api/graph?layer=l4&limit=200")).json()) as {
      nodes: { id: string; label: string }[];
    };
    const person = sample.nodes.find((n) => n.label === "OMOPPerson")!.id;
    expect(person).toMatch(/^omop-person-x/);
    for (const path of [`/api/graph/node?id=${person}`, `/graph/node?id=${person}`])
      expect((await who.researcher.api(path)).status).toBe(200);
    expect(await written({ actor: "researcher", kind: "patient" })).toEqual([]);
  });

  it("a node of another holder's patient, or an identified id a data user asks for, answers 404 and is on that patient's record as refused", async () => {
    who.researcher ??= await signIn(server.url, "researcher");
    const others = ["patient-000002", "patient-000003", "patient-000007", "patient-000008"];
    for (const id of others) expect(held).not.toContain(id);
    const looks: [string, string, string, string][] = [
      ["clinic", "/api/graph/node?id=patient-000002", "patient-000002", "graph.node.read"],
      ["clinic", "/graph/node?id=omop-person-000003", "patient-000003", "graph.node.read"],
      ["clinic", "/api/graph/expand?id=patient-000007", "patient-000007", "graph.expand.read"],
      ["researcher", "/api/graph/node?id=encounter-000008-01", "patient-000008", "graph.node.read"],
    ];
    for (const [persona, path, patient, action] of looks) {
      const answer = await who[persona].api(path);
      // the inspector's resource route answers the API's status too, with the message in place
      expect(answer.status, path).toBe(404);
      expect(Object.keys(await answer.json()), path).toContain("error");
      // not waited for (a wait would tell by the answer's time that the record exists): written by a flush
      await server.services.accessLog.flush();
      expect
        .soft(
          (await written({ actor: persona, target: patient })).map((e) => [e.action, e.outcome]),
          path,
        )
        .toEqual([[action, "refused: not shown to this caller"]]);
    }
    // an id that names no node is no look at anyone
    expect((await who.clinic.api("/api/graph/node?id=patient-999999")).status).toBe(404);
    expect(await written({ target: "patient-999999" })).toEqual([]);
  });

  it("a refusal is in the audit table when the answer arrives", async () => {
    expect((await fetch(`${server.url}/api/patient/research?patientId=x`)).status).toBe(401);
    expect(await written({ kind: "access", target: "GET /api/patient/research" })).toMatchObject([
      { actor: "anonymous", outcome: "refused (401)" },
    ]);
  });

  it("a repeat of a graph sample is counted, as a look of its own", async () => {
    for (let i = 0; i < 2; i++)
      expect((await who.clinic.api("/api/graph?layer=l3&limit=40")).status).toBe(200);
    await server.services.accessLog.flush(); // ends the window: the repeats are written
    const looks = (await written({ actor: "clinic" })).filter((e) => e.action === "graph.read");
    expect(looks.some((e) => /^success, 1 more time since /.test(e.outcome))).toBe(true);
  });
});

describe("a look whose entry cannot be written", () => {
  it("is refused with 503 and none of the record, on the API, a page and the companion app; the next look is answered", async () => {
    const [, , , , e, f] = held;
    const name = async (id: string) =>
      (
        (await (await who.clinic.api(`/api/patient/profile?patientId=${id}`)).json()) as {
          patient: { name: string };
        }
      ).patient.name;
    const release = await lockAudit();
    let answers: { status: number; text: string }[];
    try {
      answers = await Promise.all(
        [
          who.clinic.api(`/api/patient/profile?patientId=${e}`),
          who.clinic.api(`/patients/${f}`),
          who.patient2.api("/api/patient/app/record"),
        ].map(async (r) => ({ status: (await r).status, text: await (await r).text() })),
      );
    } finally {
      await release();
    }
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503]);
    expect(JSON.parse(answers[0].text)).toEqual({ error: AUDIT_UNAVAILABLE });
    expect(answers[1].text).toContain(AUDIT_UNAVAILABLE);
    expect(JSON.parse(answers[2].text)).toEqual({ error: AUDIT_UNAVAILABLE });
    // none of the records went out; with the lock gone the same looks are answered, and on record
    expect(answers[0].text).not.toContain(await name(e));
    expect(answers[1].text).not.toContain(await name(f));
    expect(answers[2].text).not.toContain("Bundle");
    expect((await who.clinic.api(`/patients/${f}`)).status).toBe(200);
    expect((await written({ actor: "clinic", target: f })).map((x) => x.action)).toContain(
      "patient.page.read",
    );
  }, 60_000);
});
