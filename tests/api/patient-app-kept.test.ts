import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSelfMeasured, RELATIONS, toPatient, type FhirResource } from "../../server/patient-app/fhir";
import { RECORD_LIMIT } from "../../server/patient-app/principal";
import { SimulatedDevice } from "../support/device";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { type Json, pairingCode } from "./patient-app.support";

/**
 * The record, the observations and a pairing's state are answered from parts kept per patient and
 * version of their inputs (server/patient-app/kept.ts, issue 13). These tests hold the answers to the
 * bytes the code built afresh on every request before (rebuilt here from the graph and the store as
 * that code did, with the answer's own per-request id and times), show that every write through the
 * server shows at the next read, and that one patient's kept parts never answer another.
 */

let server: TestServer;
let patient1: Signed, patient2: Signed;

beforeAll(async () => {
  server = await startTestServer();
  [patient1, patient2] = await Promise.all(["patient1", "patient2"].map((u) => signIn(server.url, u)));
});
afterAll(async () => server?.close());

const iso = (t: number) => new Date(t).toISOString();

/** the per-request members of an answer: the reference is built with them */
function stampsOf(text: string) {
  const b = JSON.parse(text) as Json;
  return { id: b.id as string, lastUpdated: b.meta.lastUpdated as string, timestamp: b.timestamp as string };
}

/** GET /api/patient/app/record as the code built it on every request before it was kept */
async function recordAsBefore(patientId: string, text: string): Promise<string> {
  const { graph } = server.services;
  const { store } = server.services.patientApp;
  const patient = (await graph.getNode(patientId))!;
  const holder = typeof patient.properties.holder === "string" ? patient.properties.holder : undefined;
  const ledger = new Map((await store.syncItems(patient.id)).map((i) => [i.resource_key, i]));
  const resources: FhirResource[] = [toPatient(patient)];
  for (const [type, toResource] of Object.entries(RELATIONS)) {
    const rels = await graph.relationships({
      id: patient.id,
      types: [type],
      direction: "out",
      limit: RECORD_LIMIT,
    });
    for (const r of rels) {
      const synced = ledger.get(`${r.node.properties.resourceType}/${r.node.id}`);
      resources.push(
        toResource(r.node, patient.id, holder, synced ? iso(synced.last_changed_at) : undefined),
      );
    }
  }
  const last = await store.lastSyncRun(patient.id);
  const s = stampsOf(text);
  return JSON.stringify({
    resourceType: "Bundle",
    id: s.id,
    meta: {
      lastUpdated: s.lastUpdated,
      ...(last
        ? { tag: [{ system: "urn:health-dataspace-hub:sync", code: "last-ehr-sync", display: iso(last.at) }] }
        : {}),
    },
    type: "collection",
    timestamp: s.timestamp,
    entry: resources.map((r) => ({ resource: r })),
  });
}

/** GET /api/patient/observations?… as the code built it on every request before (valid queries) */
async function observationsAsBefore(patientId: string, search: string, text: string): Promise<string> {
  const url = new URL(`${server.services.config.publicUrl}/api/patient/observations${search}`);
  const codes = (url.searchParams.get("code") ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => (c.startsWith("http://loinc.org|") ? c.slice("http://loinc.org|".length) : c));
  const bound = (raw: string | null, edge: string) =>
    !raw ? null : /^\d{4}-\d{2}-\d{2}$/.test(raw) ? Date.parse(`${raw}T${edge}Z`) : Date.parse(raw);
  const from = bound(url.searchParams.get("from"), "00:00:00.000");
  const to = bound(url.searchParams.get("to"), "23:59:59.999");
  const source = url.searchParams.get("source") ?? "all";
  const rels = await server.services.graph.relationships({
    id: patientId,
    types: ["HAS_OBSERVATION"],
    direction: "out",
    limit: RECORD_LIMIT,
  });
  const nodes = rels
    .map((r) => r.node)
    .filter((n) => {
      const p = n.properties;
      if (codes.length && !codes.includes(String(p.code))) return false;
      const t = Date.parse(String(p.effectiveDateTime ?? ""));
      if (from !== null && !(t >= from)) return false;
      if (to !== null && !(t <= to)) return false;
      if (source === "self" && !isSelfMeasured(n)) return false;
      if (source === "holder" && isSelfMeasured(n)) return false;
      return true;
    });
  nodes.sort((a, b) =>
    String(b.properties.effectiveDateTime ?? "").localeCompare(String(a.properties.effectiveDateTime ?? "")),
  );
  const s = stampsOf(text);
  return JSON.stringify({
    resourceType: "Bundle",
    id: s.id,
    meta: { lastUpdated: s.lastUpdated },
    type: "searchset",
    timestamp: s.timestamp,
    total: nodes.length,
    link: [{ relation: "self", url: `${server.services.config.publicUrl}${url.pathname}${url.search}` }],
    entry: nodes.map((n) => ({
      resource: RELATIONS.HAS_OBSERVATION(n, patientId),
      search: { mode: "match" },
    })),
  });
}

async function textOf(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  return res.text();
}

async function expectRecordAsBefore(who: Signed, patientId: string) {
  const text = await textOf(await who.api("/api/patient/app/record"));
  expect(text).toBe(await recordAsBefore(patientId, text));
  return JSON.parse(text) as Json;
}

const SEARCHES = [
  "",
  "?source=self",
  "?source=holder",
  "?code=8867-4,29463-7",
  "?code=http://loinc.org|8867-4",
  "?from=2000-01-01&to=2100-12-31",
  `?from=${new Date(Date.now() - 3_600_000).toISOString()}`,
  "?to=2020-06-30&source=all",
];

async function expectObservationsAsBefore(who: Signed, patientId: string, search: string) {
  const text = await textOf(await who.api(`/api/patient/observations${search}`));
  expect(text, search).toBe(await observationsAsBefore(patientId, search, text));
  return JSON.parse(text) as Json;
}

describe("kept answers are the bytes built afresh", () => {
  it("the record, for two patients read in turns, and for a paired device", async () => {
    for (let round = 0; round < 2; round++) {
      const r1 = await expectRecordAsBefore(patient1, "patient-000001");
      const r2 = await expectRecordAsBefore(patient2, "patient-000002");
      expect(r1.entry[0].resource.id).toBe("patient-000001");
      expect(r2.entry[0].resource.id).toBe("patient-000002");
      expect(JSON.stringify(r2)).not.toContain("patient-000001");
    }
    const device = await SimulatedDevice.create(server.url, "Kept phone");
    expect((await device.pair((await pairingCode(patient2)).code)).status).toBe(201);
    const text = await textOf(await device.request("GET", "/api/patient/app/record"));
    expect(text).toBe(await recordAsBefore("patient-000002", text));
  });

  it("a kept Bundle is answered as built, its id and time the build's, until a write", async () => {
    const a = stampsOf(await textOf(await patient1.api("/api/patient/app/record")));
    const b = stampsOf(await textOf(await patient1.api("/api/patient/app/record")));
    expect(b).toEqual(a);
    expect(Date.parse(a.timestamp)).toBe(Date.parse(a.lastUpdated));
    const other = stampsOf(await textOf(await patient2.api("/api/patient/app/record")));
    expect(other.id).not.toBe(a.id);
  });

  it("the observations, with every filter, for two patients read in turns", async () => {
    for (let round = 0; round < 2; round++)
      for (const search of SEARCHES) {
        await expectObservationsAsBefore(patient1, "patient-000001", search);
        const o2 = await expectObservationsAsBefore(patient2, "patient-000002", search);
        expect(JSON.stringify(o2)).not.toContain("patient-000001");
      }
  });
});

describe("a write through the server shows at the next read", () => {
  it("EHR sync: the ledger's times and the last sync's tag", async () => {
    const before = await expectRecordAsBefore(patient1, "patient-000001");
    expect(before.meta.tag).toBeUndefined();
    expect((await patient1.api("/api/patient/ehr-sync", { method: "POST" })).status).toBe(200);
    const after = await expectRecordAsBefore(patient1, "patient-000001");
    expect(after.meta.tag[0]).toMatchObject({ code: "last-ehr-sync" });
    expect(after.entry.some((e: Json) => e.resource.meta?.lastUpdated)).toBe(true);
    // patient2's kept record does not move with patient1's sync
    expect((await expectRecordAsBefore(patient2, "patient-000002")).meta.tag).toBeUndefined();
  });

  it("an added observation: in the record and every search at once", async () => {
    for (const search of SEARCHES) await expectObservationsAsBefore(patient1, "patient-000001", search);
    await expectRecordAsBefore(patient1, "patient-000001");
    const res = await patient1.api("/api/patient/app/record", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(SimulatedDevice.observation("8867-4", 64, "/min", new Date(Date.now() - 60_000))),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = (await res.json()).observations[0].id as string;
    for (const search of SEARCHES) await expectObservationsAsBefore(patient1, "patient-000001", search);
    expect(
      (await expectObservationsAsBefore(patient1, "patient-000001", "?source=self")).entry[0].resource.id,
    ).toBe(id);
    const record = await expectRecordAsBefore(patient1, "patient-000001");
    expect(record.entry.map((e: Json) => e.resource.id)).toContain(id);
  });

  it("a pairing: pending, completed, the device seen, removed; another patient's is 404", async () => {
    const { pairingId, code } = await pairingCode(patient1);
    const path = `/api/patient/app-pairing/${pairingId}`;
    expect(await (await patient1.api(path)).json()).toMatchObject({ state: "pending", device: null });
    expect((await patient2.api(path)).status).toBe(404);
    const device = await SimulatedDevice.create(server.url, "Pairing phone");
    expect((await device.pair(code)).status).toBe(201);
    const paired = await (await patient1.api(path)).json();
    expect(paired).toMatchObject({
      state: "completed",
      device: { deviceId: device.accountId, lastSeenAt: null },
    });
    expect((await patient2.api(path)).status).toBe(404);
    // the device's first request records when it was seen
    expect((await device.request("GET", "/api/patient/observations")).status).toBe(200);
    expect((await (await patient1.api(path)).json()).device.lastSeenAt).not.toBeNull();
    expect(
      (await patient1.api(`/api/patient/app-devices/${device.accountId}`, { method: "DELETE" })).status,
    ).toBe(200);
    expect((await (await patient1.api(path)).json()).device).toMatchObject({ status: "revoked" });
  });

  it("erasure: the sync ledger, the measurements and the pairings are gone", async () => {
    const { pairingId } = await pairingCode(patient1);
    expect((await patient1.api(`/api/patient/app-pairing/${pairingId}`)).status).toBe(200);
    expect((await expectRecordAsBefore(patient1, "patient-000001")).meta.tag).toBeDefined();
    await expectObservationsAsBefore(patient1, "patient-000001", "?source=self");
    expect((await patient1.api("/api/patient/app/account", { method: "DELETE" })).status).toBe(200);
    expect((await expectRecordAsBefore(patient1, "patient-000001")).meta.tag).toBeUndefined();
    expect((await expectObservationsAsBefore(patient1, "patient-000001", "?source=self")).total).toBe(0);
    expect((await patient1.api(`/api/patient/app-pairing/${pairingId}`)).status).toBe(404);
  });
});

describe("record reads", () => {
  it("are audited, each with its reader, once the batch is written", async () => {
    const device = await SimulatedDevice.create(server.url, "Audited phone");
    expect((await device.pair((await pairingCode(patient2)).code)).status).toBe(201);
    await textOf(await patient2.api("/api/patient/app/record"));
    await textOf(await device.request("GET", "/api/patient/app/record"));
    await server.services.patientApp.flushLog();
    const reads = (await server.services.audit.list({ kind: "patient-app", limit: 1000 })).filter(
      (e) => e.action === "patient-app.record.read" && e.target === "patient-000002",
    );
    expect(reads.map((e) => e.actor)).toEqual(
      expect.arrayContaining(["patient2", `device:${device.accountId}`]),
    );
    expect((await server.services.audit.verify()).ok).toBe(true);
  });
});
