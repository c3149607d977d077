import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditInput } from "../../server/audit/model";
import { findPersona } from "../../server/auth/personas";
import type { SessionUser } from "../../server/auth/user";
import { loadConfig } from "../../server/config";
import type { Dataspace } from "../../server/dataspace";
import { startDataspace } from "../../server/start-dataspace";
import { dataspaceHandlers } from "../../server/dataspace/handlers";
import { errorResponse } from "../../server/http/errors";
import type { HandlerContext } from "../../server/http/handler";
import type { Services } from "../../server/services";
import { openDatabase, type Db } from "../../server/storage/database";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type JsonBody = any;
/**
 * The dataspace routes against the embedded local dataspace, over real HTTP on 127.0.0.1: the
 * consumer flow (catalogue → negotiation to FINALIZED → transfer to STARTED → data pulled →
 * COMPLETED), TERMINATED negotiations, onboarding with provisioning, credentials, tasks, and
 * state that survives a restart of the local dataspace.
 */

const STEP_MS = 40;
const ALPHA_DID = "did:web:alpha-klinik.de:participant";
const PHARMACO_DID = "did:web:pharmaco.de:research";

let dataDir: string;
let db: Db;
let ds: Dataspace;
const audit: AuditInput[] = [];
const pulled: { assetId: string; provider?: string }[] = [];

const dataSource = async (assetId: string, provider?: string) => {
  pulled.push({ assetId, provider });
  return {
    resourceType: "Bundle",
    type: "collection",
    entry: [{ resource: { resourceType: "Patient", id: `patient-of-${provider}` } }],
  };
};

async function open(): Promise<Dataspace> {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    UPSTREAM_TIMEOUT_MS: "3000",
    PUBLIC_URL: "http://127.0.0.1:3999",
  });
  return startDataspace(config, {
    db,
    audit: { append: (e: AuditInput) => audit.push(e) },
    dataSource,
    local: { stepMs: STEP_MS },
  });
}

function user(username: string): SessionUser {
  const p = findPersona(username)!;
  return {
    sub: username,
    username,
    name: p.name,
    roles: p.roles,
    organisation: p.organisation,
    participantDid: p.participantDid,
    patientId: p.patientId,
  };
}

interface Call {
  query?: Record<string, string>;
  body?: unknown;
  params?: Record<string, string>;
  as?: string;
}

async function call(key: string, opts: Call = {}) {
  const [method, route] = key.split(" ");
  const url = new URL(
    `http://hub.test${route.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(opts.params?.[n] ?? n))}`,
  );
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const request = new Request(url, {
    method,
    headers: opts.body === undefined ? {} : { "content-type": "application/json" },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const ctx: HandlerContext<Services> = {
    request,
    url,
    params: opts.params ?? {},
    user: user(opts.as ?? "admin"),
    services: { dataspace: ds } as unknown as Services,
  };
  const handler = dataspaceHandlers[key];
  if (!handler) throw new Error(`no handler for ${key}`);
  let res: Response;
  try {
    res = await handler(ctx);
  } catch (e) {
    res = errorResponse(e);
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() - start > timeoutMs) return v;
    await new Promise((r) => setTimeout(r, STEP_MS / 2));
  }
}

async function alphaOffer() {
  const res = await call("GET /api/negotiations", {
    query: { participantId: "pharmaco", catalog: "true", providerDid: ALPHA_DID },
    as: "researcher",
  });
  expect(res.status).toBe(200);
  const summary = ds.summariseCatalog(res.body);
  const dataset = summary.datasets.find((d) => d.id === "fhir-cohort-bundle")!;
  return { summary, dataset, offerId: dataset.offers[0].id };
}

async function negotiate(body: Record<string, unknown>) {
  const started = await call("POST /api/negotiations", { body, as: "researcher" });
  expect(started.status).toBe(201);
  const id = started.body["@id"] as string;
  return until(
    async () =>
      (
        await call("GET /api/negotiations/:id", {
          params: { id },
          query: { participantId: "pharmaco" },
          as: "researcher",
        })
      ).body,
    (n) => n.state === "FINALIZED" || n.state === "TERMINATED",
  );
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "dataspace-local-"));
  db = openDatabase(":memory:");
  ds = await open();
});

afterAll(async () => {
  await ds?.close();
  db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the embedded local dataspace", () => {
  it("runs on loopback and says in every answer that it is a development connector", async () => {
    expect(ds.mode).toBe("embedded");
    expect(ds.local!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const root = await fetch(`${ds.local!.url}/`);
    expect(root.headers.get("x-local-dataspace")).toBe("development");
    const doc = await root.json();
    expect(doc.development).toBe(true);
    expect(doc.notice).toMatch(/development/);

    const unknown = await fetch(`${ds.local!.url}/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-local-dataspace")).toBe("development");
    expect(Array.isArray(await unknown.json())).toBe(true);

    const anonymous = await fetch(`${ds.local!.managementUrl}/v4alpha/participants`);
    expect(anonymous.status).toBe(401);
  });
});

describe("participants", () => {
  it("lists the five ACTIVATED organisations with display name, role, slug and DID", async () => {
    const res = await call("GET /api/participants");
    expect(res.status).toBe(200);
    const byId = new Map(res.body.map((p: JsonBody) => [p.participantId, p]));
    expect([...byId.keys()]).toEqual(
      expect.arrayContaining(["alphaklinik-berlin", "lmc", "pharmaco", "medreg", "irs"]),
    );
    expect(byId.get("pharmaco")).toMatchObject({
      "@id": "pharmaco",
      state: "ACTIVATED",
      participantId: "pharmaco",
      displayName: "PharmaCo Research AG",
      role: "DATA_USER",
      slug: "research",
      identity: PHARMACO_DID,
    });
    expect(byId.get("medreg")).toMatchObject({ displayName: "MedReg DE", role: "HDAB", slug: "hdab" });
    expect(byId.get("alphaklinik-berlin")).toMatchObject({
      displayName: "AlphaKlinik Berlin",
      role: "DATA_HOLDER",
      identity: ALPHA_DID,
    });
  });

  it("GET /api/participants/me answers the caller's organisation, or the person without one", async () => {
    const me = await call("GET /api/participants/me", { as: "researcher" });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: "pharmaco",
      displayName: "PharmaCo Research AG",
      did: PHARMACO_DID,
      role: "DATA_USER",
    });
    const admin = await call("GET /api/participants/me", { as: "admin" });
    expect(admin.body).toMatchObject({
      id: "user:admin",
      organization: "Dataspace Operator",
      role: "CONNECTOR_ADMIN",
    });
  });

  it("onboards a participant: 201 provisioning, then an ACTIVATED context with a DID and a credential", async () => {
    const res = await call("POST /api/participants", {
      body: { displayName: "Universitätsklinikum Nord", role: "DATA_HOLDER" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      displayName: "Universitätsklinikum Nord",
      role: "DATA_HOLDER",
      status: "provisioning",
    });
    expect(res.body.tenantId).toEqual(expect.any(String));
    const id = res.body.participantId as string;

    const before = await call("GET /api/participants");
    expect(before.body.find((p: JsonBody) => p.participantId === id)).toBeUndefined(); // still CREATED

    const listed = await until(
      async () => (await call("GET /api/participants")).body.find((p: JsonBody) => p.participantId === id),
      (p) => !!p,
    );
    // the tenant manager's display name, matched through the provisioned participant
    expect(listed).toMatchObject({
      state: "ACTIVATED",
      displayName: "Universitätsklinikum Nord",
      role: "",
      slug: "universittsklinikum-nord",
    });
    expect(listed.identity).toMatch(/^did:web:.+:universittsklinikum-nord$/);

    const creds = await until(
      async () => (await call("GET /api/participants/:id/credentials", { params: { id } })).body,
      (c) => Array.isArray(c) && c.length > 0,
    );
    expect(creds[0].type).toContain("EHDSParticipantCredential");
    expect(creds[0].credentialSubject.id).toBe(listed.identity);
    expect(audit.some((a) => a.action === "participant.create" && a.outcome === "success")).toBe(true);
  });

  it("PATCH renames a participant in the tenant manager, and the list follows", async () => {
    const res = await call("PATCH /api/participants/:id", {
      params: { id: "irs" },
      body: { displayName: "IRS Paris", organization: "Institut de Recherche Santé" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: "irs",
      displayName: "IRS Paris",
      organization: "Institut de Recherche Santé",
      did: "did:web:irs.fr:research",
    });
    const list = await call("GET /api/participants");
    expect(list.body.find((p: JsonBody) => p.participantId === "irs").displayName).toBe("IRS Paris");
    const missing = await call("PATCH /api/participants/:id", {
      params: { id: "nobody" },
      body: { displayName: "x" },
    });
    expect(missing.status).toBe(404);
  });

  it("answers a participant's credentials as W3C VCs whose proof verifies with the issuer's DID key", async () => {
    const res = await call("GET /api/participants/:id/credentials", { params: { id: "pharmaco" } });
    expect(res.status).toBe(200);
    const vc = res.body.find((c: JsonBody) => c.type.includes("EHDSParticipantCredential"));
    expect(vc).toMatchObject({
      issuer: ds.local!.issuerDid,
      credentialSubject: { id: PHARMACO_DID, ehdsParticipantType: "DATA_USER" },
    });
    expect(vc.issuanceDate).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const didDoc = await (
      await fetch(`${ds.local!.url}/dids/${encodeURIComponent(ds.local!.issuerDid)}`)
    ).json();
    const key = await importJWK(didDoc.verificationMethod[0].publicKeyJwk, "EdDSA");
    const { payload } = await jwtVerify(vc.proof.jwt, key, {
      issuer: ds.local!.issuerDid,
      subject: PHARMACO_DID,
    });
    expect((payload.vc as { credentialSubject: unknown }).credentialSubject).toEqual(vc.credentialSubject);
    expect((await call("GET /api/participants/:id/credentials", { params: { id: "nobody" } })).status).toBe(
      404,
    );
  });
});

describe("credential issuance and revocation", () => {
  it("issues a requested credential through the identity hub, and revokes it at the issuer", async () => {
    const definitions = await ds.listCredentialDefinitions();
    expect(definitions.map((d) => d.credentialType).sort()).toEqual([
      "DataProcessingPurposeCredential",
      "DataQualityLabelCredential",
      "EHDSParticipantCredential",
    ]);
    const started = await ds.requestCredential("pharmaco", "DataProcessingPurposeCredential", "researcher");
    expect(started).toMatchObject({ status: "REQUESTED", issuerDid: ds.local!.issuerDid });
    const held = await until(
      () => ds.participantCredentials("pharmaco"),
      (list) => list.some((c) => c.type.includes("DataProcessingPurposeCredential")),
    );
    const purpose = held.find((c) => c.type.includes("DataProcessingPurposeCredential"))!;
    expect(purpose.credentialSubject).toMatchObject({ id: PHARMACO_DID, purpose: "SCIENTIFIC_RESEARCH" });
    expect(purpose.status).toBe("ISSUED");

    const issued = await ds.runtime.issuer!.listCredentials(PHARMACO_DID);
    const record = issued.find((c) =>
      (c.credential.type as string[]).includes("DataProcessingPurposeCredential"),
    )!;
    await ds.revokeCredential(record.id, "admin");
    expect(await ds.runtime.issuer!.credentialStatus(record.id)).toMatchObject({ status: "REVOKED" });
    const after = await ds.participantCredentials("pharmaco");
    expect(after.find((c) => c.type.includes("DataProcessingPurposeCredential"))!.status).toBe("REVOKED");
    await expect(ds.revokeCredential("no-such-credential")).rejects.toMatchObject({ status: 404 });
    await expect(ds.requestCredential("pharmaco", "NoSuchCredential")).rejects.toMatchObject({ status: 400 });
  });
});

describe("assets", () => {
  it("groups normalised assets per ACTIVATED context and merges demonstration entries by identity and @id", async () => {
    const res = await call("GET /api/assets");
    expect(res.status).toBe(200);
    const alpha = res.body.find((g: JsonBody) => g.identity === ALPHA_DID);
    expect(alpha.participantId).toBe("alphaklinik-berlin");
    const bundle = alpha.assets.filter((a: JsonBody) => a["@id"] === "fhir-cohort-bundle");
    expect(bundle).toHaveLength(1); // the demo asset with the same @id is dropped
    expect(bundle[0]._demo).toBeUndefined(); // live first
    expect(bundle[0]).toMatchObject({
      name: "FHIR R4 diabetes cohort bundle",
      contenttype: "application/fhir+json",
      "edc:name": "FHIR R4 diabetes cohort bundle",
      "edc:contenttype": "application/fhir+json",
    });
    const lmc = res.body.find((g: JsonBody) => g.identity === "did:web:lmc.nl:participant");
    expect(lmc.assets.map((a: JsonBody) => a["@id"])).toEqual([
      "fhir-patient-everything",
      "healthdcatap-catalog",
    ]);
    expect(lmc.assets[1]._demo).toBe(true);
  });

  it("registers an asset (version 1.0.0) that then appears in the list and in the provider catalogue", async () => {
    const created = await call("POST /api/assets", {
      as: "clinic",
      body: {
        participantId: "alphaklinik-berlin",
        assetId: "fhir-oncology-2025",
        name: "Oncology cohort 2025",
      },
    });
    expect(created.status).toBe(201);
    expect(created.body["@id"]).toBe("fhir-oncology-2025");
    const list = await call("GET /api/assets", { query: { participantId: "alphaklinik-berlin" } });
    const asset = list.body.find((a: JsonBody) => a["@id"] === "fhir-oncology-2025");
    expect(asset).toMatchObject({
      name: "Oncology cohort 2025",
      description: "",
      contenttype: "application/json",
      "edc:description": "",
    });
    expect(asset.properties.version).toBe("1.0.0");
    expect(asset.dataAddress).toMatchObject({
      type: "HttpData",
      baseUrl: "http://127.0.0.1:3999/internal/graph-bridge/assets/fhir-oncology-2025",
    });
    const { summary } = await alphaOffer();
    expect(summary.datasets.map((d) => d.id)).toContain("fhir-oncology-2025");
  });
});

describe("negotiation and transfer", () => {
  it("fetches the provider catalogue: DCAT datasets with odrl:hasPolicy offers and the provider's DSP address", async () => {
    const { summary, dataset } = await alphaOffer();
    expect(summary.providerDid).toBe(ALPHA_DID);
    expect(summary.endpointUrl).toBe(`${ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`);
    expect(dataset.offers[0].policy).toMatchObject({
      "@type": "odrl:Offer",
      "odrl:assigner": ALPHA_DID,
      "odrl:target": "fhir-cohort-bundle",
    });
  });

  let agreementId = "";

  it("negotiates to FINALIZED through REQUESTED, AGREED and VERIFIED, with a contract agreement id", async () => {
    const { offerId } = await alphaOffer();
    const seen = new Set<string>();
    const started = await call("POST /api/negotiations", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        counterPartyAddress: `${ds.local!.protocolBaseUrl}/`,
        counterPartyId: "alphaklinik-berlin",
        providerDid: ALPHA_DID,
        offerId,
        assetId: "fhir-cohort-bundle",
      },
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"];
    const final = await until(
      async () => {
        const n = (
          await call("GET /api/negotiations/:id", {
            params: { id },
            query: { participantId: "pharmaco" },
            as: "researcher",
          })
        ).body;
        seen.add(n.state);
        return n;
      },
      (n) => n.state === "FINALIZED",
    );
    expect(final.state).toBe("FINALIZED");
    expect(final.counterPartyAddress).toBe(`${ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`);
    expect(final.contractAgreementId).toEqual(expect.any(String));
    expect(final.contractId).toBe(final.contractAgreementId);
    expect([...seen].every((s) => ["REQUESTED", "AGREED", "VERIFIED", "FINALIZED"].includes(s))).toBe(true);
    agreementId = final.contractAgreementId;

    const list = await call("GET /api/negotiations", {
      query: { participantId: "pharmaco" },
      as: "researcher",
    });
    expect(list.body[0]["@id"]).toBe(id); // live first, newest first
    expect(list.body.some((n: JsonBody) => n._demo)).toBe(true);
  });

  it("terminates a negotiation whose assigner is not the provider's DID, with an error detail", async () => {
    const { offerId } = await alphaOffer();
    const n = await negotiate({
      participantId: "pharmaco",
      counterPartyAddress: ds.local!.protocolBaseUrl,
      counterPartyId: "alphaklinik-berlin",
      offerId,
      assetId: "fhir-cohort-bundle",
    });
    expect(n.state).toBe("TERMINATED");
    expect(n.errorDetail).toMatch(
      /assigner "alphaklinik-berlin" is not the provider's DID did:web:alpha-klinik\.de:participant/,
    );
  });

  it("terminates a negotiation for an offer the provider does not know", async () => {
    const n = await negotiate({
      participantId: "pharmaco",
      counterPartyAddress: ds.local!.protocolBaseUrl,
      counterPartyId: "alphaklinik-berlin",
      providerDid: ALPHA_DID,
      offerId: "no-such-offer",
      assetId: "fhir-cohort-bundle",
    });
    expect(n.state).toBe("TERMINATED");
    expect(n.errorDetail).toMatch(/Contract offer no-such-offer is unknown/);
  });

  it("transfers under the agreement: STARTED with an EDR, data pulled from the data plane, then COMPLETED", async () => {
    expect(agreementId).not.toBe("");
    const started = await call("POST /api/transfers", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        contractId: agreementId,
        counterPartyAddress: `${ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
        assetId: "fhir-cohort-bundle",
      },
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"];
    const running = await until(
      async () =>
        (
          await call("GET /api/transfers/:id", {
            params: { id },
            query: { participantId: "pharmaco" },
            as: "researcher",
          })
        ).body,
      (t) => t.state !== "REQUESTED",
    );
    expect(running).toMatchObject({
      state: "STARTED",
      transferType: "HttpData-PULL",
      assetId: "fhir-cohort-bundle",
    });

    const data = await ds.pullTransferData("pharmaco", id);
    expect(data.endpoint).toBe(`${ds.local!.url}/public/${id}`);
    expect(data.data).toMatchObject({
      resourceType: "Bundle",
      entry: [{ resource: { id: "patient-of-alphaklinik-berlin" } }],
    });
    expect(pulled).toContainEqual({ assetId: "fhir-cohort-bundle", provider: "alphaklinik-berlin" });

    const done = await call("GET /api/transfers/:id", {
      params: { id },
      query: { participantId: "pharmaco" },
      as: "researcher",
    });
    expect(done.body.state).toBe("COMPLETED");

    const edr = await fetch(`${ds.local!.url}/public/${id}`);
    expect(edr.status).toBe(401); // the data plane wants the EDR token
  });

  it("terminates a transfer without a valid agreement", async () => {
    const started = await call("POST /api/transfers", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        contractId: "no-such-agreement",
        counterPartyAddress: `${ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
      },
    });
    expect(started.status).toBe(201);
    const t = await until(
      async () =>
        (
          await call("GET /api/transfers/:id", {
            params: { id: started.body["@id"] },
            query: { participantId: "pharmaco" },
          })
        ).body,
      (x) => x.state !== "REQUESTED",
    );
    expect(t).toMatchObject({
      state: "TERMINATED",
      errorDetail: expect.stringMatching(/No contract agreement no-such-agreement/),
    });
  });

  it("starts a demonstration transfer for a demo agreement id without asking the connector, and reads it back", async () => {
    const res = await call("POST /api/transfers", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        contractId: "agreement-fhir-cohort-bundle-001",
        counterPartyAddress: "https://dsp.alpha-klinik.de/api/dsp",
        assetId: "fhir-cohort-bundle",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      "@type": "TransferProcess",
      state: "REQUESTED",
      type: "CONSUMER",
      _demo: true,
      transferType: "HttpData-PULL",
    });
    const back = await call("GET /api/transfers/:id", {
      params: { id: res.body["@id"] },
      query: { participantId: "pharmaco" },
    });
    expect(back.status).toBe(200);
    expect(back.body["@id"]).toBe(res.body["@id"]);
    const list = await call("GET /api/transfers", { query: { participantId: "pharmaco" } });
    expect(list.body.map((t: JsonBody) => t["@id"])).toContain(res.body["@id"]);
  });

  it("GET /api/negotiations/:id answers 404 for an unknown id", async () => {
    const res = await call("GET /api/negotiations/:id", {
      params: { id: "nope" },
      query: { participantId: "pharmaco" },
    });
    expect(res.status).toBe(404);
    expect(
      (await call("GET /api/transfers/:id", { params: { id: "nope" }, query: { participantId: "pharmaco" } }))
        .status,
    ).toBe(404);
  });
});

describe("tasks", () => {
  it("scopes tasks to the caller's organisation; admins see every context", async () => {
    const researcher = await call("GET /api/tasks", { as: "researcher" });
    expect(researcher.status).toBe(200);
    expect(researcher.body.length).toBeGreaterThan(0);
    expect(new Set(researcher.body.map((t: JsonBody) => t.participantId))).toEqual(new Set(["pharmaco"]));
    expect(researcher.body[0]).toEqual({
      id: expect.any(String),
      title: expect.any(String),
      state: expect.any(String),
      participantId: "pharmaco",
      kind: expect.stringMatching(/^(negotiation|transfer)$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const clinic = await call("GET /api/tasks", { as: "clinic" });
    expect(clinic.body.length).toBeGreaterThan(0);
    expect(new Set(clinic.body.map((t: JsonBody) => t.participantId))).toEqual(
      new Set(["alphaklinik-berlin"]),
    );
    expect(clinic.body.some((t: JsonBody) => t.kind === "negotiation" && t.state === "FINALIZED")).toBe(true);
    const admin = await call("GET /api/tasks", { as: "admin" });
    const contexts = new Set(admin.body.map((t: JsonBody) => t.participantId));
    expect(contexts.has("pharmaco") && contexts.has("alphaklinik-berlin")).toBe(true);
  });
});

describe("restart", () => {
  it("keeps its state across a restart and resumes negotiations that were under way", async () => {
    const { offerId } = await alphaOffer();
    const pending = await call("POST /api/negotiations", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        counterPartyAddress: ds.local!.protocolBaseUrl,
        counterPartyId: "alphaklinik-berlin",
        providerDid: ALPHA_DID,
        offerId,
        assetId: "fhir-cohort-bundle",
      },
    });
    const before = await call("GET /api/negotiations", { query: { participantId: "pharmaco" } });
    const participantsBefore = (await call("GET /api/participants")).body.length;
    await ds.close();

    ds = await open();
    const after = await call("GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(after.body.map((n: JsonBody) => n["@id"])).toEqual(before.body.map((n: JsonBody) => n["@id"]));
    expect((await call("GET /api/participants")).body).toHaveLength(participantsBefore);
    expect(
      (await call("GET /api/participants")).body.find((p: JsonBody) => p.participantId === "irs").displayName,
    ).toBe("IRS Paris");

    const resumed = await until(
      async () =>
        (
          await call("GET /api/negotiations/:id", {
            params: { id: pending.body["@id"] },
            query: { participantId: "pharmaco" },
          })
        ).body,
      (n) => n.state === "FINALIZED",
    );
    expect(resumed.state).toBe("FINALIZED");
  });
});
