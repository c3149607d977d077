import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

let server: TestServer;
let admin: Signed, clinic: Signed, lmc: Signed, researcher: Signed, patient1: Signed, regulator: Signed;
const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "60" });
  [admin, clinic, lmc, researcher, patient1, regulator] = await Promise.all(
    ["admin", "clinic", "lmc", "researcher", "patient1", "regulator"].map((u) => signIn(server.url, u)),
  );
});
afterAll(async () => server?.close());

describe("health and the JSON error model", () => {
  it("reports real probes without a session", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    const h = await res.json();
    expect(h).toEqual({ status: "ok", graphdb: true, idp: true, timestamp: expect.any(String) });
    expect(Number.isNaN(Date.parse(h.timestamp))).toBe(false);
  });

  it("answers unknown paths 404, wrong methods 405 with Allow, bad JSON 400, all as JSON", async () => {
    const nf = await admin.api("/api/does-not-exist");
    expect(nf.status).toBe(404);
    expect(await nf.json()).toEqual({ error: "Not found: /api/does-not-exist" });
    const na = await admin.api("/api/catalog", { method: "PATCH" });
    expect(na.status).toBe(405);
    expect(na.headers.get("allow")).toBe("GET, POST, DELETE");
    expect((await na.json()).error).toMatch(/not allowed/);
    const bad = await clinic.api("/api/catalog", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Request body must be valid JSON" });
  });

  it("sets security headers and refuses mutating calls from a foreign origin", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("referrer-policy")).toBeTruthy();
    // every other answer too: a cached list (pre-encoded, gzip), a JSON answer built per request, an error
    for (const answer of [
      await clinic.api("/api/catalog", { headers: { "accept-encoding": "gzip" } }),
      await clinic.api("/api/patient?limit=1"),
      await fetch(`${server.url}/api/catalog`),
      await clinic.api("/api/no-such-route"),
    ]) {
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
      expect(answer.headers.get("content-security-policy")).toBe(
        "default-src 'none'; frame-ancestors 'none'",
      );
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(Number(answer.headers.get("content-length"))).toBeGreaterThan(0);
    }
    const before = (await (await clinic.api("/api/catalog")).json()).length;
    const foreign = await clinic.api("/api/catalog", {
      ...json({ id: "ds-evil", title: "Evil" }),
      headers: { "content-type": "application/json", origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect((await (await clinic.api("/api/catalog")).json()).length).toBe(before);
  });
});

describe("catalogue", () => {
  it("lists HealthDCAT-AP datasets with the spec's fields", async () => {
    const res = await researcher.api("/api/catalog");
    expect(res.status).toBe(200);
    const list = await res.json();
    expect(list.length).toBeGreaterThan(3);
    for (const d of list) {
      expect(typeof d.id).toBe("string");
      expect(typeof d.title).toBe("string");
      if (d.recordCount !== undefined) expect(Number.isInteger(d.recordCount)).toBe(true);
      if (d.conformsTo !== undefined) expect(Array.isArray(d.conformsTo)).toBe(true);
    }
  });

  it("creates (201), refuses missing id or title (400) and duplicates (409), deletes (204) and 404s, with audit entries", async () => {
    const missing = await clinic.api("/api/catalog", json({ title: "No id" }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "id and title are required" });
    expect((await clinic.api("/api/catalog", json({ id: "x-1" }))).status).toBe(400);
    const badLicense = await clinic.api(
      "/api/catalog",
      json({ id: "x-2", title: "T", license: "not a uri" }),
    );
    expect(badLicense.status).toBe(400);
    expect((await badLicense.json()).error).toMatch(/^license:/);

    const created = await clinic.api(
      "/api/catalog",
      json({
        id: "ds-test-cardio",
        title: "Cardiology registry",
        personalData: true,
        conformsTo: ["https://hl7.org/fhir/R4"],
      }),
    );
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      id: "ds-test-cardio",
      title: "Cardiology registry",
      publisher: "AlphaKlinik Berlin",
      holder: "alphaklinik-berlin",
    });
    expect((await clinic.api("/api/catalog", json({ id: "ds-test-cardio", title: "again" }))).status).toBe(
      409,
    );
    expect((await researcher.api("/api/catalog")).status).toBe(200);
    expect(
      (await (await researcher.api("/api/catalog")).json()).some(
        (d: { id: string }) => d.id === "ds-test-cardio",
      ),
    ).toBe(true);

    expect((await researcher.api("/api/catalog", json({ id: "r-1", title: "R" }))).status).toBe(403);
    expect((await lmc.api("/api/catalog?id=ds-test-cardio", { method: "DELETE" })).status).toBe(403);
    const del = await clinic.api("/api/catalog?id=ds-test-cardio", { method: "DELETE" });
    expect(del.status).toBe(204);
    const again = await clinic.api("/api/catalog?id=ds-test-cardio", { method: "DELETE" });
    expect(again.status).toBe(404);
    expect((await again.json()).error).toEqual(expect.any(String));

    const audit = await server.services.audit.list({ limit: 20 });
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(["catalogue.create", "catalogue.delete"]),
    );
    expect((await server.services.audit.verify()).ok).toBe(true);
  });
});

describe("graph", () => {
  it("honours the limit, spreads across layers and reports true counts", async () => {
    const all = await (await admin.api("/api/graph?layer=all&limit=300")).json();
    expect(all.nodes.length).toBe(300);
    expect(new Set(all.nodes.map((n: { layer: string }) => n.layer))).toEqual(
      new Set(["l1", "l2", "l3", "l4", "l5"]),
    );
    const ids = new Set(all.nodes.map((n: { id: string }) => n.id));
    for (const e of all.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
    const counts = await server.services.graph.counts();
    const total = Object.values(counts.nodesByLabel).reduce((a, b) => a + b, 0);
    expect(all.meta).toMatchObject({ layer: "all", totalNodes: total, returnedNodes: 300, truncated: true });
    expect(all.meta.totalEdges).toBe(Object.values(counts.edgesByType).reduce((a, b) => a + b, 0));

    const def = await (await admin.api("/api/graph")).json();
    expect(def.nodes.length).toBeLessThanOrEqual(1000);
    expect(def.meta.layer).toBe("all");
    const l3 = await (await admin.api("/api/graph?layer=l3&limit=50")).json();
    expect(l3.nodes.every((n: { layer: string }) => n.layer === "l3")).toBe(true);
    expect(l3.meta.totalNodes).toBe(await server.services.graph.countNodes(["l3"]));
    const persona = await (await admin.api("/api/graph?persona=researcher&limit=200")).json();
    expect(persona.nodes.some((n: { layer: string }) => n.layer === "l3")).toBe(false);

    for (const q of ["layer=l9", "limit=0", "limit=abc", "limit=999999", "persona=nobody"]) {
      const r = await admin.api(`/api/graph?${q}`);
      expect(r.status, q).toBe(400);
    }
  });

  it("returns a node with its relationships, expands by depth and 404s unknown ids", async () => {
    const node = await (await admin.api("/api/graph/node?id=patient-000001")).json();
    expect(node).toMatchObject({ id: "patient-000001", label: "Patient", layer: "l3" });
    expect(node.relationships.length).toBeGreaterThan(2);
    expect((await admin.api("/api/graph/node?id=nope")).status).toBe(404);
    expect((await admin.api("/api/graph/node")).status).toBe(400);
    const d1 = await (await admin.api("/api/graph/expand?id=patient-000001")).json();
    const d2 = await (await admin.api("/api/graph/expand?id=patient-000001&depth=2")).json();
    expect(d2.nodes.length).toBeGreaterThan(d1.nodes.length);
    expect((await admin.api("/api/graph/expand?id=nope")).status).toBe(404);
  });

  it("validates the schema conventions and counts per label and type", async () => {
    const v = await (await regulator.api("/api/graph/validate")).json();
    expect(v.valid).toBe(true);
    expect(v.violations).toEqual([]);
    expect(v.layers.l3.labels.Patient).toBe(60);
    expect(Object.keys(v.relationshipTypes)).toEqual(expect.arrayContaining(["MAPPED_TO", "CODED_BY"]));
  });

  it("keeps patients out of the graph", async () => {
    expect((await patient1.api("/api/graph")).status).toBe(403);
  });
});

describe("patient", () => {
  it("lets a patient reach only their own record", async () => {
    const list = await (await patient1.api("/api/patient")).json();
    expect(list).toEqual([expect.objectContaining({ id: "patient-000001" })]);
    const own = await patient1.api("/api/patient/profile?patientId=patient-000001");
    expect(own.status).toBe(200);
    const profile = await own.json();
    expect(profile.patient.id).toBe("patient-000001");
    for (const k of ["encounters", "conditions", "observations", "medications"])
      expect(Array.isArray(profile[k])).toBe(true);
    expect(profile.conditions.length).toBeGreaterThan(0);
    for (const path of ["profile", "insights", "research"]) {
      const other = await patient1.api(`/api/patient/${path}?patientId=patient-000002`);
      expect(other.status, path).toBe(403);
    }
    expect((await patient1.api("/api/patient/profile?patientId=patient-999999")).status).toBe(403);
  });

  it("lets holders see their own organisation's patients and 404s unknown ids", async () => {
    const list = await (await clinic.api("/api/patient?limit=500")).json();
    expect(list.length).toBeGreaterThan(0);
    const nodes = await server.services.graph.findNodes({
      label: "Patient",
      where: { holder: "alphaklinik-berlin" },
      limit: 1000,
    });
    expect(list.length).toBe(nodes.length);
    const foreign = await server.services.graph.findNodes({
      label: "Patient",
      where: { holder: "lmc" },
      limit: 1,
    });
    expect((await clinic.api(`/api/patient/profile?patientId=${foreign[0].id}`)).status).toBe(403);
    expect((await admin.api("/api/patient/profile?patientId=patient-999999")).status).toBe(404);
    expect((await admin.api("/api/patient/profile")).status).toBe(400);
    expect((await researcher.api("/api/patient")).status).toBe(403);
  });

  it("summarises insights and manages research consent (201 / 400 / 409 / 204)", async () => {
    const ins = await (await patient1.api("/api/patient/insights?patientId=patient-000001")).json();
    expect(ins.counts.conditions).toBeGreaterThan(0);
    const programmes = await (await patient1.api("/api/patient/research?patientId=patient-000001")).json();
    expect(programmes.length).toBeGreaterThan(0);
    const studyId = programmes[0].studyId;

    const missing = await patient1.api("/api/patient/research", json({ patientId: "patient-000001" }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "patientId and studyId are required" });
    const granted = await patient1.api(
      "/api/patient/research",
      json({ patientId: "patient-000001", studyId }),
    );
    expect(granted.status).toBe(201);
    const { consentId } = await granted.json();
    expect(consentId).toMatch(/^consent-/);
    expect(
      (await patient1.api("/api/patient/research", json({ patientId: "patient-000001", studyId }))).status,
    ).toBe(409);
    const after = await (await patient1.api("/api/patient/research?patientId=patient-000001")).json();
    expect(after.find((p: { studyId: string }) => p.studyId === studyId).consent).toMatchObject({
      consentId,
      status: "active",
      purpose: "RESEARCH",
    });
    expect(
      (await patient1.api("/api/patient/research", json({ patientId: "patient-000002", studyId }))).status,
    ).toBe(403);

    const revoked = await patient1.api(
      `/api/patient/research?patientId=patient-000001&studyId=${encodeURIComponent(studyId)}`,
      { method: "DELETE" },
    );
    expect(revoked.status).toBe(204);
    const gone = await patient1.api(
      `/api/patient/research?patientId=patient-000001&studyId=${encodeURIComponent(studyId)}`,
      { method: "DELETE" },
    );
    expect(gone.status).toBe(404);
    expect((await server.services.audit.list({ kind: "consent" })).map((e) => e.action)).toEqual([
      "consent.revoke",
      "consent.grant",
    ]);
  });
});

describe("sessions", () => {
  it("401s without or with an invalid session, and logout ends it", async () => {
    expect((await fetch(`${server.url}/api/catalog`)).status).toBe(401);
    expect(
      (
        await fetch(`${server.url}/api/catalog`, {
          headers: { cookie: "app-auth.session-token=forged.value" },
        })
      ).status,
    ).toBe(401);
    const s = await signIn(server.url, "lmc");
    expect((await s.api("/api/catalog")).status).toBe(200);
    const out = await s.api("/auth/logout", { method: "POST" });
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toContain("/idp/session/end");
    expect((await s.api("/api/catalog")).status).toBe(401);
  });
});
