import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GraphNode, GraphResponse } from "../../server/graph/model";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Data minimisation by role (issue 11; server/privacy/policy.ts, README "What each role sees"):
 * every persona signs in for real and walks every route and view that can return patient data;
 * the test fails when a seeded person's name, birth date, FHIR resource id or stored record id
 * (the record holder's patient number) appears where the role table says it must not. The seeded
 * identities are read from the store itself.
 */

const PERSONAS = ["admin", "clinic", "lmc", "researcher", "regulator", "trustcenter", "patient1", "patient2"];
const PV =
  "Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?";
const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

interface Person {
  id: string;
  holder: string;
  /** the strings that identify this person in any answer */
  marks: string[];
}

let server: TestServer;
const who: Record<string, Signed> = {};
let people: Person[] = [];

/** what a persona may see with identities: everyone, the records its organisation holds, its own */
const SEES: Record<string, (p: Person) => boolean> = {
  admin: () => true,
  clinic: (p) => p.holder === "alphaklinik-berlin",
  lmc: (p) => p.holder === "lmc",
  patient1: (p) => p.id === "patient-000001",
  patient2: (p) => p.id === "patient-000002",
  researcher: () => false,
  regulator: () => false,
  trustcenter: () => false,
};

/** \uXXXX escapes and HTML entities undone, so that a name is found however a view serialised it */
function plain(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#x([0-9a-fA-F]+);/g, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'");
}

/** the identities in `text` that `persona` must not see (a stored id the request itself sent is an echo) */
function leaks(persona: string, text: string, sent = ""): string[] {
  const t = plain(text);
  const out: string[] = [];
  for (const p of people) {
    if (SEES[persona](p)) continue;
    for (const m of p.marks) if (t.includes(m)) out.push(`${p.id}: ${m}`);
    // the stored id carries the holder's patient number; not as part of a longer id
    if (!sent.includes(p.id) && new RegExp(`\\b${p.id}\\b(?!-)`).test(t)) out.push(`${p.id}: stored id`);
  }
  return out;
}

/** every request made: [persona, path, status, leaks] */
const walked: { persona: string; path: string; status: number; leaks: string[] }[] = [];

async function visit(
  persona: string,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; text: string }> {
  const res = await who[persona].api(path, init);
  const text = await res.text();
  walked.push({
    persona,
    path: `${init?.method ?? "GET"} ${path}`,
    status: res.status,
    leaks: leaks(persona, text, decodeURIComponent(path)),
  });
  return { status: res.status, text };
}

beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "40" });
  const g = server.services.graph;
  const patients = await g.findNodes({ label: "Patient", limit: 10_000 });
  // birth dates that are also dates of care in the data are not distinctive (a visit on that day)
  const careDates = new Set<string>();
  for (const label of ["Encounter", "Condition", "Observation", "MedicationRequest"])
    for (const n of await g.findNodes({ label, limit: 100_000 }))
      for (const v of Object.values(n.properties))
        if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v)) careDates.add(v.slice(0, 10));
  people = patients.map((n: GraphNode) => {
    const s = (k: string) => (typeof n.properties[k] === "string" ? (n.properties[k] as string) : "");
    const birth = s("birthDate");
    return {
      id: n.id,
      holder: s("holder"),
      marks: [
        s("name"),
        `${s("familyName")}, ${s("givenName")}`,
        s("resourceId"),
        ...(careDates.has(birth) ? [] : [birth]),
      ].filter((m) => m.length > 3),
    };
  });
  // only marks that single out one person: a name or birth date two people share identifies neither
  const count = new Map<string, number>();
  for (const p of people) for (const m of new Set(p.marks)) count.set(m, (count.get(m) ?? 0) + 1);
  people = people.map((p) => ({ ...p, marks: p.marks.filter((m) => count.get(m) === 1) }));
  for (const p of PERSONAS) who[p] = await signIn(server.url, p);
}, 120_000);
afterAll(async () => server?.close());

describe("the seeded identities the test looks for", () => {
  it("come from the store and are found where they belong (the checker can fail)", async () => {
    expect(people.length).toBe(40);
    const maria = people.find((p) => p.id === "patient-000001")!;
    expect(maria.marks).toContain("Maria Schneider");
    const { status, text } = await visit("admin", "/api/graph/node?id=patient-000001");
    expect(status).toBe(200);
    expect(leaks("researcher", text)).toContain("patient-000001: Maria Schneider");
  });
});

describe("the issue's case: a data user asks the graph for Maria Schneider", () => {
  it("answers 404 for her stored id, and a pseudonymised record without identities in the graph", async () => {
    const node = await visit("researcher", "/api/graph/node?id=patient-000001");
    expect(node.status).toBe(404);
    expect(JSON.parse(node.text)).toEqual({ error: "Node patient-000001 not found" });
    expect((await visit("researcher", "/api/graph/expand?id=patient-000001")).status).toBe(404);
    const g = JSON.parse((await visit("researcher", "/api/graph?layer=l3&limit=200")).text) as GraphResponse;
    const patients = g.nodes.filter((n) => n.label === "Patient");
    expect(patients.length).toBeGreaterThan(0);
    for (const p of patients) {
      expect(p.id).toMatch(/^patient-x[a-z2-7]{12}$/);
      expect(p.properties).toMatchObject({ birthYear: expect.any(Number), pseudonym: expect.any(String) });
      for (const k of ["name", "givenName", "familyName", "birthDate", "city", "resourceId"])
        expect(p.properties[k]).toBeUndefined();
    }
    // the pseudonymised id opens the same pseudonymised record
    const again = await visit("researcher", `/api/graph/node?id=${patients[0].id}`);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toMatchObject({ id: patients[0].id, label: "Patient" });
  });

  it("still shows identities to the operator, the holding organisation and the patient", async () => {
    expect((await visit("admin", "/api/graph/node?id=patient-000001")).text).toContain("Maria Schneider");
    expect((await visit("clinic", "/api/graph/node?id=patient-000001")).text).toContain("Maria Schneider");
    // Thomas Müller's record is held by Limburg Medical Centre
    expect((await visit("clinic", "/api/graph/node?id=patient-000002")).status).toBe(404);
    expect((await visit("lmc", "/api/graph/node?id=patient-000002")).text).toContain("Thomas Müller");
    expect((await visit("patient1", "/api/patient/profile?patientId=patient-000001")).text).toContain(
      "Maria Schneider",
    );
  });
});

describe("the audit log read by the access body (issue 11: entries named patient record ids)", () => {
  it("shows the operator the stored entries, and the access body pseudonymised ones without their hashes", async () => {
    // entries that name a patient record: patient1 revokes and grants a research consent
    const programmes = await (
      await who.patient1.api("/api/patient/research?patientId=patient-000001")
    ).text();
    const studyId = /approval-[\w-]+/.exec(programmes)?.[0];
    expect(studyId).toBeTruthy();
    const q = `patientId=patient-000001&studyId=${encodeURIComponent(studyId!)}`;
    await (await who.patient1.api(`/api/patient/research?${q}`, { method: "DELETE" })).arrayBuffer();
    const granted = await who.patient1.api(
      "/api/patient/research",
      post({ patientId: "patient-000001", studyId }),
    );
    expect(granted.status).toBe(201);

    type Entry = { action: string; actor: string; target: string; hash: string; prevHash: string };
    const asAdmin = JSON.parse((await visit("admin", "/api/admin/audit?limit=1000")).text) as Entry[];
    const stored = asAdmin.find(
      (e) => e.action === "consent.grant" && e.target.startsWith("patient-000001/"),
    );
    expect(stored).toMatchObject({ actor: "patient1", hash: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const page = await visit("regulator", "/api/admin/audit?limit=1000");
    expect(page.status).toBe(200);
    const asRegulator = JSON.parse(page.text) as Entry[];
    expect(asRegulator.length).toBeGreaterThanOrEqual(asAdmin.length);
    const seen = asRegulator.find((e) => e.action === "consent.grant" && e.target.endsWith(`/${studyId}`));
    expect(seen?.target).toMatch(/^patient-x[a-z2-7]{12}\//);
    expect(seen?.actor).toBe(seen?.target.split("/")[0]);
    expect(seen).toMatchObject({ hash: "", prevHash: "" });
    expect(page.text).not.toContain("patient-000001");
    expect(page.text).not.toContain('"patient1"');
    // the pseudonym is the graph's pseudonym of the same record
    const graph = JSON.parse(
      (await visit("regulator", "/api/graph?layer=l3&limit=5000")).text,
    ) as GraphResponse;
    expect(graph.nodes.map((n) => n.id)).toContain(seen?.target.split("/")[0]);

    // a search for the stored id finds nothing (no oracle); a search for the pseudonym finds the entries
    const byStored = JSON.parse(
      (await visit("regulator", "/api/admin/audit?q=patient-000001")).text,
    ) as Entry[];
    expect(byStored).toEqual([]);
    const pseudonym = seen!.actor;
    const byPseudonym = JSON.parse(
      (await visit("regulator", `/api/admin/audit?q=${pseudonym}&limit=5`)).text,
    ) as Entry[];
    expect(byPseudonym.length).toBeGreaterThan(0);
    expect(byPseudonym.every((e) => `${e.actor} ${e.target}`.includes(pseudonym))).toBe(true);
    const byActor = JSON.parse((await visit("regulator", "/api/admin/audit?actor=patient1")).text) as Entry[];
    expect(byActor).toEqual([]);
  });
});

describe("every persona, every route and view that can return patient data", () => {
  it("shows no identity the role table withholds", async () => {
    const conditions = "38341003";
    const templates = JSON.parse((await visit("admin", "/api/nlq")).text) as {
      templates?: { examples?: string[]; example?: string }[];
    };
    const questions = [
      PV,
      "Which patients have diabetes? Show their names and birth dates.",
      ...(templates.templates ?? [])
        .flatMap((t) => t.examples ?? (t.example ? [t.example] : []))
        .slice(0, 12),
    ];
    for (const persona of PERSONAS) {
      const paths = [
        "/api/graph",
        "/api/graph?layer=l3&limit=5000",
        "/api/graph?layer=l4&limit=5000",
        "/api/graph?persona=trustcenter&limit=5000",
        "/api/graph?persona=clinic&limit=5000",
        "/api/graph/validate",
        "/api/patient",
        "/api/patient/profile?patientId=patient-000001",
        "/api/patient/profile?patientId=patient-000003",
        "/api/patient/insights?patientId=patient-000001",
        "/api/analytics",
        `/api/federated?condition=${conditions}`,
        "/api/overview",
        "/api/trust-center",
        "/api/activity-report",
        "/api/permits",
        "/api/admin/audit?limit=1000",
        "/api/admin/audit?q=patient",
        "/",
        "/graph",
        "/graph?layer=l3&limit=2000",
        "/graph?focus=patient-000001",
        // the explorer's drawing, loaded after the page (decision 0027)
        "/graph/drawing.data?_routes=routes%2Fgraph.drawing",
        "/graph/drawing.data?layer=l3&limit=2000&_routes=routes%2Fgraph.drawing",
        "/graph/drawing.data?focus=patient-000001&_routes=routes%2Fgraph.drawing",
        "/graph/validate",
        "/analytics",
        "/analytics.csv",
        `/cohorts?condition=${conditions}&run=1`,
        `/ask?q=${encodeURIComponent(PV)}`,
        "/patients",
        "/patients/patient-000001",
        "/patients/patient-000002",
        "/my-record",
        "/trust-center",
        "/audit",
        "/audit?q=patient",
        "/audit.csv",
      ];
      for (const path of paths) await visit(persona, path);
      for (const question of questions) await visit(persona, "/api/nlq", post({ question }));

      // the graph as this persona sees it: open and expand its person-level nodes (API and explorer fetchers)
      const g = await visit(persona, "/api/graph?layer=l3&limit=400");
      if (g.status !== 200) continue;
      const nodes = (JSON.parse(g.text) as GraphResponse).nodes;
      const ids = [
        ...nodes.filter((n) => n.label === "Patient").slice(0, 15),
        ...nodes.filter((n) => n.label !== "Patient").slice(0, 5),
      ].map((n) => n.id);
      for (const id of [...ids, "patient-000001", "patient-000002", "omop-person-000001"]) {
        const q = encodeURIComponent(id);
        await visit(persona, `/api/graph/node?id=${q}`);
        await visit(persona, `/api/graph/expand?id=${q}&depth=2`);
        await visit(persona, `/graph/node.data?id=${q}&_routes=routes%2Fgraph.node`);
        await visit(persona, `/graph/expand.data?id=${q}&depth=1&_routes=routes%2Fgraph.expand`);
      }
    }
    const found = walked.filter((w) => w.leaks.length);
    expect(
      found.map((w) => `${w.persona} ${w.path} (${w.status}): ${w.leaks.slice(0, 3).join("; ")}`),
    ).toEqual([]);
    // the walk reached real data for every persona
    for (const persona of PERSONAS)
      expect(walked.filter((w) => w.persona === persona && w.status === 200).length).toBeGreaterThanOrEqual(
        4,
      );
    console.log(
      `minimisation walk: ${walked.length} requests, ${walked.filter((w) => w.status === 200).length} answered 200`,
    );
    expect(walked.filter((w) => w.status >= 500).map((w) => `${w.persona} ${w.path}`)).toEqual([]);
  }, 300_000);
});
