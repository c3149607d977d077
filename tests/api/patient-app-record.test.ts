import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { SimulatedDevice } from "../support/device";
import { type Json, pairingCode } from "./patient-app.support";

/**
 * Black-box tests of the companion app routes with a simulated device (tests/support/device.ts):
 * challenge, app account, pairing, the device-signed request credential, the FHIR record,
 * self-measured observations, filters, EHR sync, removal and erasure, and every refusal.
 * Expiry is tested by ageing the stored challenge or pairing (waiting minutes is not a test).
 *
 * This file: creating an app account, pairing, self-measured observations, EHR sync, devices and erasure (whose assertions count what the earlier tests of this file created, so they stay together).
 */

let server: TestServer;

let patient1: Signed, patient2: Signed, clinic: Signed;

const post = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  server = await startTestServer();
  [patient1, patient2, clinic] = await Promise.all(
    ["patient1", "patient2", "clinic"].map((u) => signIn(server.url, u)),
  );
});

afterAll(async () => server?.close());

async function pairedDevice(who: Signed = patient1, name?: string): Promise<SimulatedDevice> {
  const device = await SimulatedDevice.create(server.url, name);
  const { code } = await pairingCode(who);
  const res = await device.pair(code);
  expect(res.status, await res.clone().text()).toBe(201);
  return device;
}

describe("app accounts: challenge and device attestation", () => {
  it("creates an app account bound to the device key, and refuses the same key twice", async () => {
    const device = await SimulatedDevice.create(server.url);
    const res = await device.createAccount();
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({
      accountId: expect.stringMatching(/^app-/),
      status: "unpaired",
      keyThumbprint: expect.any(String),
      credential: { scheme: "Device", alg: "ES256" },
    });
    const again = await device.createAccount();
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: "An app account already exists for this device key",
      accountId: body.accountId,
    });
  });
});

describe("pairing", () => {
  it("creates a pairing with a code, a QR code and a short expiry; shows its state only to its patient", async () => {
    const res = await patient1.api("/api/patient/app-pairing", { method: "POST" });
    expect(res.status).toBe(201);
    const p = await res.json();
    expect(p).toMatchObject({
      pairingId: expect.stringMatching(/^pair-/),
      code: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/),
      state: "pending",
    });
    expect(p.qr).toMatch(/^data:image\/svg\+xml;base64,/);
    const ttl = Date.parse(p.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000);

    const state = await patient1.api(`/api/patient/app-pairing/${p.pairingId}`);
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({ pairingId: p.pairingId, state: "pending", device: null });
    expect((await patient2.api(`/api/patient/app-pairing/${p.pairingId}`)).status).toBe(404);
    expect((await patient1.api("/api/patient/app-pairing/pair-unknown")).status).toBe(404);
    expect((await clinic.api("/api/patient/app-pairing", { method: "POST" })).status).toBe(403);
    expect((await fetch(`${server.url}/api/patient/app-pairing`, { method: "POST" })).status).toBe(401);
  });

  it("is completed by the app with the code and an attestation over it, once", async () => {
    const { pairingId, code } = await pairingCode(patient1);
    const device = await SimulatedDevice.create(server.url, "Test phone");
    const res = await device.pair(code.toLowerCase());
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      deviceId: device.accountId,
      name: "Test phone",
      status: "active",
      patient: { id: "patient-000001" },
    });
    const state = await (await patient1.api(`/api/patient/app-pairing/${pairingId}`)).json();
    expect(state).toMatchObject({
      state: "completed",
      device: { deviceId: device.accountId, name: "Test phone" },
    });

    const second = await SimulatedDevice.create(server.url);
    const reused = await second.pair(code);
    expect(reused.status).toBe(409);
    expect((await reused.json()).error).toBe("This pairing code was already used");
    const again = await device.pair((await pairingCode(patient1)).code);
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe("This device is already paired with this record");
  });

  it("refuses a wrong code, an expired code, an attestation over another code, and a device of another patient", async () => {
    const device = await SimulatedDevice.create(server.url);
    const wrong = await device.pair("ZZZZ-ZZZZ");
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toBe("The pairing code is not valid");

    const { pairingId, code } = await pairingCode(patient1);
    const mismatched = await device.postJson("/api/patient/app-devices", {
      code,
      attestation: await device.attestation(await device.challenge(), "pairing", { code: "AAAA-BBBB" }),
    });
    expect(mismatched.status).toBe(401);
    server.services.db
      .prepare("UPDATE app_pairings SET expires_at = ? WHERE id = ?")
      .run(Date.now() - 1000, pairingId);
    const expired = await device.pair(code);
    expect(expired.status).toBe(400);
    expect((await expired.json()).error).toMatch(/expired/);
    expect((await (await patient1.api(`/api/patient/app-pairing/${pairingId}`)).json()).state).toBe(
      "expired",
    );

    const p2device = await pairedDevice(patient2);
    const cross = await p2device.pair((await pairingCode(patient1)).code);
    expect(cross.status).toBe(409);
    expect((await cross.json()).error).toMatch(/paired with another record/);
    expect((await device.postJson("/api/patient/app-devices", { attestation: "x" })).status).toBe(400);
  });
});

describe("self-measured observations", () => {
  let device: SimulatedDevice;
  beforeAll(async () => {
    device = await pairedDevice(patient1, "Measuring phone");
  });

  it("adds validated observations to the patient's own record, marked as self-measured", async () => {
    const at = new Date(Date.now() - 60_000);
    const res = await device.request("POST", "/api/patient/app/record", {
      resourceType: "Bundle",
      type: "batch",
      entry: [
        { resource: SimulatedDevice.observation("8867-4", 72, "/min", at) },
        { resource: SimulatedDevice.observation("29463-7", 81.5, "kg", at) },
      ],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const body = await res.json();
    expect(body.created).toBe(2);
    const hr = body.observations[0];
    expect(hr).toMatchObject({
      resourceType: "Observation",
      status: "final",
      meta: { tag: [{ code: "self-measured" }] },
      subject: { reference: "Patient/patient-000001" },
      performer: [{ reference: "Patient/patient-000001" }],
      code: { coding: [{ system: "http://loinc.org", code: "8867-4", display: "Heart rate" }] },
      valueQuantity: { value: 72, system: "http://unitsofmeasure.org", code: "/min" },
      device: { display: "Measuring phone" },
    });

    const filtered = await (
      await device.request("GET", "/api/patient/observations?code=8867-4&source=self")
    ).json();
    expect(filtered).toMatchObject({ resourceType: "Bundle", type: "searchset" });
    expect(filtered.total).toBeGreaterThanOrEqual(1);
    expect(
      filtered.entry.every(
        (e: Json) =>
          e.resource.code.coding[0].code === "8867-4" && e.resource.meta.tag[0].code === "self-measured",
      ),
    ).toBe(true);
    expect(filtered.entry.some((e: Json) => e.resource.id === hr.id)).toBe(true);

    // the patient sees it in the same record through the session
    const viaSession = await (
      await patient1.api("/api/patient/observations?code=http://loinc.org|8867-4")
    ).json();
    expect(viaSession.entry.some((e: Json) => e.resource.id === hr.id)).toBe(true);
    // and through the patient profile of the record (layer l3)
    const profile = await (await patient1.api("/api/patient/profile?patientId=patient-000001")).json();
    expect(profile.observations.some((o: Json) => o.id === hr.id && o.selfMeasured === true)).toBe(true);
  });

  it("filters by code and date range", async () => {
    const all = await (await patient1.api("/api/patient/observations")).json();
    expect(all.total).toBeGreaterThan(2);
    const dates = all.entry.map((e: Json) => e.resource.effectiveDateTime as string).sort();
    const mid = dates[Math.floor(dates.length / 2)].slice(0, 10);
    const from = await (await patient1.api(`/api/patient/observations?from=${mid}`)).json();
    expect(from.entry.every((e: Json) => e.resource.effectiveDateTime >= `${mid}T00:00:00`)).toBe(true);
    const to = await (await patient1.api(`/api/patient/observations?to=${mid}`)).json();
    expect(to.entry.every((e: Json) => e.resource.effectiveDateTime <= `${mid}T23:59:59.999Z`)).toBe(true);
    expect(from.total + to.total).toBeGreaterThanOrEqual(all.total);
    const holderOnly = await (await patient1.api("/api/patient/observations?source=holder")).json();
    expect(holderOnly.entry.every((e: Json) => !e.resource.meta.tag)).toBe(true);

    for (const [q, msg] of [
      ["code=heart", /not a LOINC code/],
      ["from=yesterday", /must be a date/],
      ["from=2024-02-01&to=2024-01-01", /from must not be after to/],
      ["source=mine", /source must be/],
    ] as const) {
      const res = await patient1.api(`/api/patient/observations?${q}`);
      expect(res.status, q).toBe(400);
      expect((await res.json()).error).toMatch(msg);
    }
  });

  it("refuses unknown codes, wrong code systems and units, implausible values, future dates and other patients' records", async () => {
    const obs = SimulatedDevice.observation;
    const cases: [unknown, number, RegExp][] = [
      [obs("1234-5", 10, "kg"), 400, /not a self-measurable code/],
      [
        {
          ...obs("8867-4", 70, "/min"),
          code: { coding: [{ system: "http://snomed.info/sct", code: "364075005" }] },
        },
        400,
        /LOINC coding/,
      ],
      [obs("8867-4", 70, "kg"), 400, /measured in \/min, not kg/],
      [
        { ...obs("8867-4", 70, "/min"), valueQuantity: { value: 70, system: "urn:other", code: "/min" } },
        400,
        /UCUM/,
      ],
      [obs("8867-4", 400, "/min"), 400, /outside the plausible range/],
      [obs("29463-7", 0.2, "kg"), 400, /outside the plausible range/],
      [obs("8867-4", 70, "/min", new Date(Date.now() + 3600_000)), 400, /future/],
      [
        { ...obs("8867-4", 70, "/min"), subject: { reference: "Patient/patient-000002" } },
        403,
        /your own record/,
      ],
      [{ resourceType: "Patient" }, 400, /FHIR Observation or a Bundle/],
      [{ ...obs("8867-4", 70, "/min"), effectiveDateTime: "last tuesday" }, 400, /effectiveDateTime/],
    ];
    for (const [body, status, msg] of cases) {
      const res = await device.request("POST", "/api/patient/app/record", body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await res.json()).error).toMatch(msg);
    }
    // all or nothing: one bad entry refuses the whole bundle
    const before = (await (await patient1.api("/api/patient/observations?source=self")).json()).total;
    const mixed = await device.request("POST", "/api/patient/app/record", {
      resourceType: "Bundle",
      type: "batch",
      entry: [{ resource: obs("8867-4", 70, "/min") }, { resource: obs("8867-4", 999, "/min") }],
    });
    expect(mixed.status).toBe(400);
    expect((await mixed.json()).error).toMatch(/^entry\[1\]/);
    expect((await (await patient1.api("/api/patient/observations?source=self")).json()).total).toBe(before);
  });

  it("lets a patient session add one too, and keeps every patient to their own record", async () => {
    const mine = await patient2.api(
      "/api/patient/app/record",
      post(SimulatedDevice.observation("8310-5", 37.2, "Cel")),
    );
    expect(mine.status).toBe(201);
    const created = (await mine.json()).observations[0];
    const record2 = await (await patient2.api("/api/patient/app/record")).json();
    expect(record2.entry[0].resource.id).toBe("patient-000002");
    expect(record2.entry.some((e: Json) => e.resource.id === created.id)).toBe(true);
    const record1 = await (await device.request("GET", "/api/patient/app/record")).json();
    expect(record1.entry.some((e: Json) => e.resource.id === created.id)).toBe(false);
    expect(
      record1.entry.every(
        (e: Json) =>
          e.resource.resourceType === "Patient" || e.resource.subject.reference === "Patient/patient-000001",
      ),
    ).toBe(true);
    // a staff session is not a patient's
    expect((await clinic.api("/api/patient/app/record")).status).toBe(403);
    expect((await clinic.api("/api/patient/observations")).status).toBe(403);
  });
});

describe("EHR sync", () => {
  it("reports what the data holders added, and changes nothing when run again", async () => {
    const first = await patient2.api("/api/patient/ehr-sync", { method: "POST" });
    expect(first.status).toBe(200);
    const a = await first.json();
    expect(a).toMatchObject({ patientId: "patient-000002", firstSync: true, changed: true });
    expect(a.totals.added).toBeGreaterThan(3);
    expect(a.totals.updated).toBe(0);
    expect(a.holders[0]).toMatchObject({
      holder: expect.any(String),
      name: expect.any(String),
      did: expect.stringMatching(/^did:web:/),
    });
    const second = await (await patient2.api("/api/patient/ehr-sync", { method: "POST" })).json();
    expect(second).toMatchObject({
      firstSync: false,
      changed: false,
      totals: { added: 0, updated: 0, removed: 0, unchanged: a.totals.added },
    });
    // self-measured data is the patient's own, not the holders'
    expect(a.changes.every((c: Json) => !String(c.key).includes("observation-self-"))).toBe(true);
  });

  it("runs from a paired device too", async () => {
    const device = await pairedDevice(patient1, "Sync phone");
    const res = await device.request("POST", "/api/patient/ehr-sync");
    expect(res.status).toBe(200);
    expect((await res.json()).patientId).toBe("patient-000001");
  });
});

describe("devices: list and remove", () => {
  it("lists the patient's devices and revokes a removed device's credential at once", async () => {
    const device = await pairedDevice(patient1, "Old phone");
    const list = await (await patient1.api("/api/patient/app-devices")).json();
    expect(
      list.devices.some(
        (d: Json) => d.deviceId === device.accountId && d.name === "Old phone" && d.status === "active",
      ),
    ).toBe(true);
    const others = await (await patient2.api("/api/patient/app-devices")).json();
    expect(others.devices.some((d: Json) => d.deviceId === device.accountId)).toBe(false);
    expect((await clinic.api("/api/patient/app-devices")).status).toBe(403);

    expect((await device.request("GET", "/api/patient/observations")).status).toBe(200);
    expect(
      (await patient2.api(`/api/patient/app-devices/${device.accountId}`, { method: "DELETE" })).status,
    ).toBe(404);
    const removed = await patient1.api(`/api/patient/app-devices/${device.accountId}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toMatchObject({ deviceId: device.accountId, status: "revoked" });
    const refused = await device.request("GET", "/api/patient/observations");
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toMatch(/removed, its credential is revoked/);
    expect(
      (await patient1.api(`/api/patient/app-devices/${device.accountId}`, { method: "DELETE" })).status,
    ).toBe(404);
    const after = await (await patient1.api("/api/patient/app-devices")).json();
    expect(after.devices.some((d: Json) => d.deviceId === device.accountId)).toBe(false);
    const withRemoved = await (await patient1.api("/api/patient/app-devices?include=removed")).json();
    expect(withRemoved.devices.find((d: Json) => d.deviceId === device.accountId)?.status).toBe("revoked");
    // the revoked key cannot come back as a new account
    const reborn = await device.createAccount();
    expect(reborn.status).toBe(403);
  });
});

describe("erasure (GDPR Art. 17)", () => {
  it("erases a device's app account and the measurements it added, and says what", async () => {
    const device = await pairedDevice(patient1, "Erased phone");
    expect(
      (
        await device.request(
          "POST",
          "/api/patient/app/record",
          SimulatedDevice.observation("59408-5", 97, "%"),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await device.request(
          "POST",
          "/api/patient/app/record",
          SimulatedDevice.observation("59408-5", 96, "%"),
        )
      ).status,
    ).toBe(201);
    const res = await device.request("DELETE", "/api/patient/app/account");
    expect(res.status).toBe(200);
    const report = await res.json();
    expect(report).toMatchObject({
      legalBasis: expect.stringContaining("Art. 17"),
      erased: {
        appAccounts: 1,
        deviceCredentials: 1,
        selfMeasuredObservations: 2,
        devices: [{ deviceId: device.accountId, name: "Erased phone" }],
      },
    });
    expect(report.retained.length).toBeGreaterThan(0);
    expect((await device.request("GET", "/api/patient/app/record")).status).toBe(401);
    const spo2 = await (await patient1.api("/api/patient/observations?code=59408-5&source=self")).json();
    expect(spo2.total).toBe(0);
  });

  it("erases all app data of a patient through the session, and only theirs", async () => {
    const d1 = await pairedDevice(patient2, "Phone A");
    expect(
      (
        await d1.request(
          "POST",
          "/api/patient/app/record",
          SimulatedDevice.observation("8480-6", 128, "mm[Hg]"),
        )
      ).status,
    ).toBe(201);
    const p1before = (await (await patient1.api("/api/patient/observations?source=self")).json()).total;
    const res = await patient2.api("/api/patient/app/account", { method: "DELETE" });
    expect(res.status).toBe(200);
    const report = await res.json();
    expect(report.erased.appAccounts).toBeGreaterThanOrEqual(2); // Phone A and the device from the pairing tests
    expect(report.erased.selfMeasuredObservations).toBeGreaterThanOrEqual(2);
    expect(report.erased.syncLedgerEntries).toBeGreaterThan(0);
    expect((await (await patient2.api("/api/patient/observations?source=self")).json()).total).toBe(0);
    expect((await (await patient2.api("/api/patient/app-devices")).json()).devices).toEqual([]);
    expect((await d1.request("GET", "/api/patient/app/record")).status).toBe(401);
    expect((await (await patient1.api("/api/patient/observations?source=self")).json()).total).toBe(p1before);
    const resync = await (await patient2.api("/api/patient/ehr-sync", { method: "POST" })).json();
    expect(resync.firstSync).toBe(true);
    expect((await clinic.api("/api/patient/app/account", { method: "DELETE" })).status).toBe(403);
  });

  it("records every step in the audit log", async () => {
    const actions = new Set(
      (await server.services.audit.list({ kind: "patient-app", limit: 1000 })).map((e) => e.action),
    );
    for (const a of [
      "app-account.create",
      "app-pairing.create",
      "app-device.pair",
      "app-device.revoke",
      "patient-app.observation.add",
      "patient-app.ehr-sync",
      "patient-app.account.erase",
    ]) {
      expect(actions, a).toContain(a);
    }
    expect((await server.services.audit.verify()).ok).toBe(true);
  });
});
