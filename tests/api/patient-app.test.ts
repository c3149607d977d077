import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { newDeviceKeys, SimulatedDevice } from "../support/device";
import { type Json, pairingCode } from "./patient-app.support";

/**
 * Black-box tests of the companion app routes with a simulated device (tests/support/device.ts):
 * challenge, app account, pairing, the device-signed request credential, the FHIR record,
 * self-measured observations, filters, EHR sync, removal and erasure, and every refusal.
 * Expiry is tested by ageing the stored challenge or pairing (waiting minutes is not a test).
 *
 * This file: the device-signed request credential.
 */

let server: TestServer;

let patient1: Signed;

beforeAll(async () => {
  server = await startTestServer();
  patient1 = await signIn(server.url, "patient1");
});

afterAll(async () => server?.close());

async function pairedDevice(who: Signed = patient1, name?: string): Promise<SimulatedDevice> {
  const device = await SimulatedDevice.create(server.url, name);
  const { code } = await pairingCode(who);
  const res = await device.pair(code);
  expect(res.status, await res.clone().text()).toBe(201);
  return device;
}

describe("the device-signed request credential", () => {
  let device: SimulatedDevice;
  beforeAll(async () => {
    device = await pairedDevice(patient1, "Credential phone");
  });

  it("reads the record as a FHIR R4 Bundle", async () => {
    const res = await device.request("GET", "/api/patient/app/record");
    expect(res.status).toBe(200);
    const b = await res.json();
    expect(b).toMatchObject({ resourceType: "Bundle", type: "collection" });
    const types = new Set(b.entry.map((e: Json) => e.resource.resourceType));
    for (const t of ["Patient", "Encounter", "Condition", "Observation"]) expect(types).toContain(t);
    const patient = b.entry[0].resource;
    expect(patient).toMatchObject({
      resourceType: "Patient",
      id: "patient-000001",
      name: [{ family: expect.any(String) }],
    });
    for (const e of b.entry.slice(1))
      expect(e.resource.subject).toEqual({ reference: "Patient/patient-000001" });
    const obs = b.entry.find((e: Json) => e.resource.resourceType === "Observation").resource;
    expect(obs.code.coding[0].system).toBe("http://loinc.org");
    expect(obs.valueQuantity.system).toBe("http://unitsofmeasure.org");
    expect(obs.meta.source).toMatch(/^did:web:/);
  });

  it("refuses a replayed token, an old one, another key, another URL or method, a changed body and an unknown account", async () => {
    expect((await device.request("GET", "/api/patient/observations")).status).toBe(200);
    const replay = await device.request("GET", "/api/patient/observations", undefined, { reuse: true });
    expect(replay.status).toBe(401);
    expect((await replay.json()).error).toMatch(/already used \(replay\)/);

    const old = await device.request("GET", "/api/patient/observations", undefined, {
      iat: Math.floor(Date.now() / 1000) - 600,
    });
    expect(old.status).toBe(401);
    expect((await old.json()).error).toMatch(/valid for 60 seconds/);

    const forged = await device.request("GET", "/api/patient/observations", undefined, {
      key: (await newDeviceKeys()).privateKey,
    });
    expect(forged.status).toBe(401);
    expect((await forged.json()).error).toMatch(/signature does not verify/);

    const otherUrl = await device.request("GET", "/api/patient/observations", undefined, {
      htu: `${server.url}/api/patient/app/record`,
    });
    expect(otherUrl.status).toBe(401);
    expect((await otherUrl.json()).error).toMatch(/another URL/);
    expect(
      (await device.request("GET", "/api/patient/observations", undefined, { htm: "POST" })).status,
    ).toBe(401);

    const tampered = await device.request(
      "POST",
      "/api/patient/app/record",
      SimulatedDevice.observation("8867-4", 70, "/min"),
      { bh: "A".repeat(43) },
    );
    expect(tampered.status).toBe(401);
    expect((await tampered.json()).error).toMatch(/body hash/);

    expect(
      (await device.request("GET", "/api/patient/observations", undefined, { kid: "app-nobody" })).status,
    ).toBe(401);
    const bearer = await fetch(`${server.url}/api/patient/app/record`, {
      headers: { authorization: "Bearer abc" },
    });
    expect(bearer.status).toBe(401);
    expect((await fetch(`${server.url}/api/patient/app/record`)).status).toBe(401);
  });

  it("gives an unpaired app account nothing but its own erasure", async () => {
    const lonely = await SimulatedDevice.create(server.url);
    expect((await lonely.createAccount()).status).toBe(201);
    const res = await lonely.request("GET", "/api/patient/app/record");
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatch(/not paired/);
    const erased = await lonely.request("DELETE", "/api/patient/app/account");
    expect(erased.status).toBe(200);
    expect((await erased.json()).erased).toMatchObject({ appAccounts: 1, selfMeasuredObservations: 0 });
    expect((await lonely.request("GET", "/api/patient/app/record")).status).toBe(401);
  });
});
