import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/** Black-box: the insight routes (spec section 4) and views on the real server, 60 seeded patients, no language back end. */
let server: TestServer;
let admin: Signed,
  researcher: Signed,
  clinic: Signed,
  regulator: Signed,
  patient1: Signed,
  trustcenter: Signed;
const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const PV =
  "Is tendon rupture observed in patients treated with ciprofloxacin diagnosed with urinary tract infection?";

beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "60" });
  [admin, researcher, clinic, regulator, patient1, trustcenter] = await Promise.all(
    ["admin", "researcher", "clinic", "regulator", "patient1", "trustcenter"].map((u) =>
      signIn(server.url, u),
    ),
  );
});
afterAll(async () => server?.close());

describe("GET /api/analytics", () => {
  it("answers the OMOP dashboard with exact totals for the operator and k applied for a data user", async () => {
    const a = await (await admin.api("/api/analytics")).json();
    expect(a.totals.persons).toBe(60);
    expect(a.totals.conditionOccurrences).toBeGreaterThan(60);
    expect(a.topConditions[0]).toMatchObject({
      system: "SNOMED CT",
      display: expect.any(String),
      persons: expect.any(Number),
    });
    expect(a.scope.k).toBeNull();
    const r = await (await researcher.api("/api/analytics?top=30")).json();
    expect(r.scope).toMatchObject({ k: 5, aggregateOnly: true });
    // under k a condition whose count is suppressed is left out, not listed as "<5" (decision 0093)
    const exact = (await (await admin.api("/api/analytics?top=30")).json()).topConditions;
    const published = exact.filter((t: { persons: number }) => t.persons >= 5);
    expect(published.length).toBeGreaterThan(0);
    expect(published.length).toBeLessThan(30);
    expect(r.topConditions.map((t: { code: string }) => t.code)).toEqual(
      published.map((t: { code: string }) => t.code),
    );
    for (const t of r.topConditions)
      expect(t).toMatchObject({ suppressed: false, persons: expect.any(Number) });
    expect(r.totals).toEqual(a.totals);
  });

  it("is refused to patients and anonymous callers; validates top", async () => {
    expect((await patient1.api("/api/analytics")).status).toBe(403);
    expect((await fetch(`${server.url}/api/analytics`)).status).toBe(401);
    const bad = await admin.api("/api/analytics?top=0");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/top must be between 1 and 50/);
  });
});

describe("GET /api/federated", () => {
  it("summarises a cohort per secure processing environment with k-anonymity", async () => {
    const res = await researcher.api("/api/federated?condition=hypertension&gender=female");
    expect(res.status).toBe(200);
    const s = await res.json();
    expect(s.k).toBe(5);
    expect(s.criteria.condition).toMatchObject({ code: "38341003", system: "SNOMED CT" });
    expect(s.environments.map((e: { holder: string }) => e.holder)).toEqual(["alphaklinik-berlin", "lmc"]);
    const cells = [s.cohort, ...s.environments, ...s.strata.gender, ...s.strata.ageBand];
    for (const c of cells) {
      if (c.suppressed) expect(c).toMatchObject({ count: null, display: "<5 or withheld" });
      else expect(c.count === 0 || c.count >= 5).toBe(true);
    }
    expect((await trustcenter.api("/api/federated")).status).toBe(200);
  });

  it("never lowers k and rejects unknown terms with a clear 400", async () => {
    const low = await researcher.api("/api/federated?k=3");
    expect(low.status).toBe(400);
    expect((await low.json()).error).toMatch(/k must be at least 5/);
    expect((await (await researcher.api("/api/federated?k=12")).json()).k).toBe(12);
    const unknown = await researcher.api("/api/federated?drug=unobtainium");
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatch(/drug: no RxNorm or ATC concept/);
    expect((await patient1.api("/api/federated")).status).toBe(403);
  });

  it("logs every query in the audit chain, written by the audit batch thread beside the server's own writes", async () => {
    const logged = async () =>
      (
        (await (await admin.api("/api/admin/audit?kind=insight&actor=researcher&limit=1000")).json()) as {
          action: string;
          target: string;
        }[]
      ).filter((e) => e.action === "federated.query" && e.target === "gender=male").length;
    const before = await logged();
    const queries = Array.from({ length: 40 }, () => researcher.api("/api/federated?gender=male"));
    // the server's own writes on its main connection (sessions) while the thread appends the batches
    const sessions = Array.from({ length: 3 }, () => signIn(server.url, "researcher"));
    expect((await Promise.all(queries)).map((r) => r.status)).toEqual(Array(40).fill(200));
    await Promise.all(sessions);
    // written in batches, 100 ms apart
    await expect.poll(logged).toBe(before + 40);
    const v = (await (await admin.api("/api/admin/audit?verify=true")).json()) as {
      ok: boolean;
      checked: number;
      entries: number;
    };
    expect(v).toMatchObject({ ok: true });
    expect(v.checked).toBe(v.entries);
  });
});

describe("/api/nlq", () => {
  it("lists at least 12 templates with patterns, parameters and layers", async () => {
    const list = await (await researcher.api("/api/nlq")).json();
    expect(list.count).toBeGreaterThanOrEqual(12);
    expect(list.templates.map((t: { id: string }) => t.id)).toContain("pharmacovigilance");
    for (const t of list.templates) {
      expect(t.patterns.length).toBeGreaterThan(0);
      expect(Array.isArray(t.parameters)).toBe(true);
      expect(t.layers.length).toBeGreaterThan(0);
      expect(t.cypher).toMatch(/MATCH/);
    }
  });

  it("answers the pharmacovigilance question with rows, the Cypher, interpretation, layers and the ODRL scope", async () => {
    const res = await researcher.api("/api/nlq", post({ question: PV }));
    expect(res.status).toBe(200);
    const a = await res.json();
    expect(a).toMatchObject({
      matched: true,
      executed: true,
      backend: "templates",
      template: { id: "pharmacovigilance" },
      layers: ["l5", "l4"],
    });
    expect(a.parameters).toMatchObject({
      condition: { code: "68566005", icd10: "N39.0" },
      drug: { code: "2551", system: "RxNorm" },
      outcome: { code: "429513001" },
    });
    expect(a.query.text).toMatch(/MATCH \(:SnomedConcept \{code: \$condition\}\)/);
    expect(a.query.parameters).toEqual({ outcome: "429513001", drug: "2551", condition: "68566005" });
    expect(a.rows).toHaveLength(3);
    expect(a.interpretation).toMatch(/ciprofloxacin/);
    expect(a.scope).toMatchObject({ role: "DATA_USER", k: 5, aggregateOnly: true });
    expect(a.scope.prohibitions).toContain("ehds:reIdentify");
    for (const row of a.rows)
      for (const key of ["patients", "withOutcome"])
        if (typeof row[key] === "number") expect(row[key] === 0 || row[key] >= 5).toBe(true);
  });

  it("validates the body: 400 for a missing question, bad JSON or an unknown template", async () => {
    const missing = await researcher.api("/api/nlq", post({}));
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatch(/question is required/);
    const bad = await researcher.api("/api/nlq", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    const tpl = await researcher.api("/api/nlq", post({ question: PV, templateId: "no-such-template" }));
    expect(tpl.status).toBe(400);
    expect((await tpl.json()).error).toMatch(/templateId must be "auto" or one of/);
    const explicit = await researcher.api(
      "/api/nlq",
      post({ question: "How many patients have asthma?", templateId: "condition-count" }),
    );
    expect((await explicit.json()).template.id).toBe("condition-count");
  });

  it("answers 200 matched:false with suggestions when no template matches and no back end is set", async () => {
    const a = await (
      await researcher.api("/api/nlq", post({ question: "Tell me a joke about FHIR" }))
    ).json();
    expect(a).toMatchObject({ matched: false, executed: false, backend: "templates", rows: [] });
    expect(a.suggestions.length).toBeGreaterThan(0);
    expect(a.reason).toMatch(/No template matches/);
  });

  it("says which back end answers", async () => {
    const b = await (await patient1.api("/api/nlq/backend")).json();
    expect(b).toMatchObject({
      mode: "templates",
      backend: "templates",
      proxy: null,
      answersFirst: "templates",
      templates: expect.any(Number),
    });
    expect((await patient1.api("/api/nlq", post({ question: PV }))).status).toBe(403);
  });
});

describe("GET /api/eehrxf and GET /api/overview", () => {
  it("lists the EEHRxF categories with coverage from the data", async () => {
    const c = await (await patient1.api("/api/eehrxf")).json();
    expect(c.categories.map((x: { id: string }) => x.id)).toEqual([
      "patient-summary",
      "eprescription",
      "laboratory",
      "imaging",
      "discharge",
    ]);
    const lab = c.categories.find((x: { id: string }) => x.id === "laboratory");
    expect(lab.profiles[0]).toMatchObject({
      canonical: "http://hl7.eu/fhir/laboratory/StructureDefinition/Observation-resultslab-eu-lab",
      resources: expect.any(Number),
    });
    expect(lab.profiles[0].resources).toBeGreaterThan(0);
  });

  it("withholds counts from 1 to k−1 (and what would give them back) from a data user, not from the access body", async () => {
    type Profile = {
      id: string;
      patients?: number[];
      resources: number | null;
      conformant: number | null;
      coverage: number | null;
    };
    type Category = {
      id: string;
      profiles: (Profile & {
        elements: { path: string; present: number | null; coverage: number | null }[];
      })[];
      readiness: { total: number | null; ready: number | null; coverage: number | null; gaps: string[] };
    };
    const exact: Category[] = (await (await regulator.api("/api/eehrxf")).json()).categories;
    const user: Category[] = (await (await researcher.api("/api/eehrxf")).json()).categories;
    const small = (n: number | null) => n !== null && n >= 1 && n <= 4;
    // the seeded data has few inpatient stays: the access body sees their exact count
    const discharge = exact.find((c) => c.id === "discharge")!;
    expect(discharge.profiles[0].resources).toSatisfy(small);
    expect(discharge.readiness.total).toBe(discharge.profiles[0].resources);
    expect(discharge.profiles[0].patients?.[0]).toBe(1);
    const withheld = user.find((c) => c.id === "discharge")!;
    expect(withheld.readiness).toMatchObject({ total: null, ready: null, coverage: null });
    expect(withheld.profiles[0]).toMatchObject({ resources: null, conformant: null, coverage: null });
    for (const e of withheld.profiles[0].elements) expect(e).toMatchObject({ present: null, coverage: null });
    expect(withheld.readiness.gaps.join(" ")).not.toMatch(/%/);
    // nowhere a count from 1 to 4, and no percentage of a withheld count to recompute it from
    for (const c of user)
      for (const p of c.profiles) {
        expect(p).not.toHaveProperty("patients");
        for (const n of [p.resources, p.conformant, ...p.elements.map((e) => e.present)])
          expect(n).not.toSatisfy(small);
        if (p.conformant === null) expect(p.coverage).toBeNull();
        for (const e of p.elements) if (e.present === null) expect(e.coverage).toBeNull();
      }
    const page = await (await clinic.api("/eehrxf")).text();
    expect(page).toContain("withheld");
    expect(await (await regulator.api("/eehrxf")).text()).not.toContain(">withheld<");
  });

  it("gives each persona its layers, counts and signals, with the access body's when it is there", async () => {
    const reg = await (await regulator.api("/api/overview")).json();
    expect(reg.persona.role).toBe("HDAB_AUTHORITY");
    expect(reg.layers.map((l: { layer: string }) => l.layer)).toEqual(["l1", "l2", "l4", "l5"]);
    expect(reg.totals.links).toBeGreaterThan(0);
    expect(reg.signals.map((s: { id: string }) => s.id)).toContain("pending-approvals");
    expect(reg.accessBody).toBe("available");
    expect(reg.signals.some((s: { source: string }) => s.source === "access-body")).toBe(true);
    // each card links to the list it counts
    for (const s of reg.signals as { href?: string }[]) expect(s.href).toMatch(/^\//);
    const holder = await (await clinic.api("/api/overview")).json();
    expect(holder.persona.role).toBe("DATA_HOLDER");
    expect(holder.signals.find((s: { id: string }) => s.id === "patients").value).toBeGreaterThan(0);
    expect((await clinic.api("/api/overview?persona=HDAB_AUTHORITY")).status).toBe(403);
    expect((await clinic.api("/api/overview?persona=nonsense")).status).toBe(400);
    expect((await (await admin.api("/api/overview?persona=researcher")).json()).persona.role).toBe(
      "DATA_USER",
    );
    const p = await (await patient1.api("/api/overview")).json();
    expect(p.persona.role).toBe("PATIENT");
    expect(p.layers).toEqual([]);
  });
});

describe("insight views", () => {
  it("render for their roles, with the CSV export", async () => {
    const pages: [Signed, string, string][] = [
      [researcher, "/analytics", 'data-testid="analytics"'],
      [researcher, "/cohorts?condition=38341003&run=1", 'data-testid="cohort-result"'],
      [researcher, `/ask?q=${encodeURIComponent(PV)}`, 'data-testid="answer-table"'],
      [clinic, "/eehrxf", 'data-testid="category-laboratory"'],
      [regulator, "/", 'data-testid="signals"'],
    ];
    for (const [who, path, marker] of pages) {
      const res = await who.api(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(await res.text()).toContain(marker);
    }
    const csv = await researcher.api("/analytics.csv");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
    expect((await csv.text()).split("\r\n")[0]).toBe(
      "section,code,system,name,rows,persons,unit,mean,sd,suppressed",
    );
    expect((await patient1.api("/analytics")).status).toBe(403);
  });
});
