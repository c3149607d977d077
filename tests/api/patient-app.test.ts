import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";
import { newDeviceKeys, signJws, SimulatedDevice } from "../support/device";
import { type Json, pairingCode } from "./patient-app.support";

/**
 * Black-box tests of the companion app routes with a simulated device (tests/support/device.ts):
 * challenge, app account, pairing, the device-signed request credential, the FHIR record,
 * self-measured observations, filters, EHR sync, removal and erasure, and every refusal.
 * Expiry is tested by ageing the stored challenge or pairing (waiting minutes is not a test).
 *
 * This file: app account challenges and refused attestations, and the device-signed request credential.
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

describe("app accounts: challenge and device attestation", () => {
  it("issues single-use challenges without a session", async () => {
    const res = await fetch(`${server.url}/api/app-accounts/challenge`, { method: "POST" });
    expect(res.status).toBe(201);
    const c = await res.json();
    expect(c.nonce).toMatch(/^[\w-]{40,}$/);
    expect(Date.parse(c.expiresAt) - Date.now()).toBeGreaterThan(60_000);
    expect(c.audience).toBe(server.url);
  });

  it("refuses a replayed attestation (the nonce is single-use)", async () => {
    const device = await SimulatedDevice.create(server.url);
    const attestation = await device.attestation(await device.challenge(), "app-account");
    expect((await device.postJson("/api/app-accounts", { attestation })).status).toBe(201);
    const other = await SimulatedDevice.create(server.url);
    // the same signed attestation sent again, and another device's attestation over the used nonce
    const replay = await device.postJson("/api/app-accounts", { attestation });
    expect(replay.status).toBe(401);
    expect((await replay.json()).error).toMatch(/already used \(replay\)/);
    const [, payload] = attestation.split(".");
    const nonce = JSON.parse(Buffer.from(payload, "base64url").toString()).nonce as string;
    const reuse = await other.postJson("/api/app-accounts", {
      attestation: await other.attestation(nonce, "app-account"),
    });
    expect(reuse.status).toBe(401);
  });

  it("refuses an expired challenge", async () => {
    const device = await SimulatedDevice.create(server.url);
    const nonce = await device.challenge();
    server.services.db
      .prepare("UPDATE app_challenges SET expires_at = ? WHERE nonce = ?")
      .run(Date.now() - 1000, nonce);
    const res = await device.postJson("/api/app-accounts", {
      attestation: await device.attestation(nonce, "app-account"),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatch(/expired/);
  });

  it("refuses a bad signature, an unknown nonce, another audience or purpose, and malformed attestations", async () => {
    const device = await SimulatedDevice.create(server.url);
    const stranger = await newDeviceKeys();
    const forged = await device.postJson("/api/app-accounts", {
      attestation: await device.attestation(await device.challenge(), "app-account", {}, stranger.privateKey),
    });
    expect(forged.status).toBe(401);
    expect((await forged.json()).error).toMatch(/signature does not verify/);

    const unknown = await device.postJson("/api/app-accounts", {
      attestation: await device.attestation("x".repeat(43), "app-account"),
    });
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).error).toMatch(/unknown nonce/);

    const aud = await device.postJson("/api/app-accounts", {
      attestation: await device.attestation(await device.challenge(), "app-account", {
        aud: "https://evil.example",
      }),
    });
    expect(aud.status).toBe(401);
    expect((await aud.json()).error).toMatch(/another service/);

    const purpose = await device.postJson("/api/app-accounts", {
      attestation: await device.attestation(await device.challenge(), "pairing"),
    });
    expect(purpose.status).toBe(401);

    expect((await device.postJson("/api/app-accounts", {})).status).toBe(400);
    expect((await device.postJson("/api/app-accounts", { attestation: "not-a-jws" })).status).toBe(400);
    const rsa = await signJws(
      { alg: "ES256", typ: "app-attestation+jwt", jwk: { kty: "RSA", n: "abc", e: "AQAB" } },
      { nonce: await device.challenge() },
      device.keys.privateKey,
    );
    const wrongKey = await device.postJson("/api/app-accounts", { attestation: rsa });
    expect(wrongKey.status).toBe(400);
    expect((await wrongKey.json()).error).toMatch(/P-256 JWK/);
    const hs = await signJws(
      { alg: "HS256", typ: "app-attestation+jwt", jwk: device.keys.publicJwk },
      { nonce: "x" },
      device.keys.privateKey,
    );
    expect((await device.postJson("/api/app-accounts", { attestation: hs })).status).toBe(400);
  });
});

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
