import { importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { buildContractDefinition } from "../../server/dataspace/assets";
import { decodeOfferId } from "../../server/local-dataspace/catalog";
import { type JsonBody, ALPHA_DID, localDataspaceHarness } from "./dataspace-local.support";

/**
 * The dataspace routes against the embedded local dataspace, over real HTTP on 127.0.0.1: the
 * consumer flow (catalogue → negotiation to FINALIZED → transfer to STARTED → data pulled →
 * COMPLETED), TERMINATED negotiations, onboarding with provisioning, credentials, tasks, and
 * state that survives a restart of the local dataspace.
 *
 * This file: the embedded dataspace, participants, credentials, assets and a restart (which checks the participants' changes survive it).
 */

const h = localDataspaceHarness();
const { call, until, alphaOffer, audit } = h;

const PHARMACO_DID = "did:web:pharmaco.de:research";

describe("the embedded local dataspace", () => {
  it("runs on loopback and says in every answer that it is a development connector", async () => {
    expect(h.ds.mode).toBe("embedded");
    expect(h.ds.local!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const root = await fetch(`${h.ds.local!.url}/`);
    expect(root.headers.get("x-local-dataspace")).toBe("development");
    const doc = await root.json();
    expect(doc.development).toBe(true);
    expect(doc.notice).toMatch(/development/);

    const unknown = await fetch(`${h.ds.local!.url}/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-local-dataspace")).toBe("development");
    expect(Array.isArray(await unknown.json())).toBe(true);

    const anonymous = await fetch(`${h.ds.local!.managementUrl}/v4alpha/participants`);
    expect(anonymous.status).toBe(401);
  });

  it("serves a provider's DSP catalogue over HTTP to a consumer with this runtime's token (401 without, or with another): the offers the hub's catalogue shows, with fresh offer ids", async () => {
    const local = h.ds.local!;
    const dsp = `${local.protocolBaseUrl}/alphaklinik-berlin/2025-1/catalog/request`;
    const credentials = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: local.clientId,
      client_secret: local.clientSecret,
    });
    const token = (await (await fetch(local.tokenUrl, { method: "POST", body: credentials })).json())
      .access_token;
    const ask = (message: unknown, url = dsp, authorization = `Bearer ${token}`) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization },
        body: JSON.stringify(message),
      });
    // EDC's DspRequestHandlerImpl: no token "Unauthorized.", a token that does not verify "Unauthorized"
    for (const [authorization, reason] of [
      ["", "Unauthorized."],
      [`Bearer ${token.slice(0, -4)}AAAA`, "Unauthorized"],
      [`Basic ${Buffer.from(`${local.clientId}:${local.clientSecret}`).toString("base64")}`, "Unauthorized"],
    ]) {
      const refused = await ask({ "@type": "CatalogRequestMessage" }, dsp, authorization);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ "@type": "CatalogError", code: "401", reason: [reason] });
    }
    const message = { "@type": "CatalogRequestMessage", filter: [] };
    const first = await ask(message);
    expect(first.status).toBe(200);
    const catalog = await first.json();
    expect(catalog["@type"]).toBe("dcat:Catalog");
    expect(catalog["dspace:participantId"]).toBe(ALPHA_DID);
    const datasetIds = (c: { "dcat:dataset": { "@id": string }[] }) => c["dcat:dataset"].map((d) => d["@id"]);
    const offerIds = (c: { "dcat:dataset": { "odrl:hasPolicy": { "@id": string }[] }[] }) =>
      c["dcat:dataset"].flatMap((d) => d["odrl:hasPolicy"].map((o) => o["@id"]));

    // the hub's catalogue (the management API, which asks the same provider in-process) has the same datasets
    const { summary } = await alphaOffer();
    expect(datasetIds(catalog).sort()).toEqual(summary.datasets.map((d) => d.id).sort());
    // and each request is answered with offer ids of its own
    const again = await (await ask(message)).json();
    expect(offerIds(again)).toHaveLength(offerIds(catalog).length);
    expect(offerIds(again).filter((id) => offerIds(catalog).includes(id))).toEqual([]);

    const wrongType = await ask({ "@type": "ContractRequestMessage" });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toMatchObject({
      "@type": "CatalogError",
      code: "400",
      reason: ["expected a CatalogRequestMessage"],
    });
    // a negotiation or transfer message of another connector: this one negotiates only in-process
    const negotiation = await ask({}, dsp.replace("catalog/request", "negotiations/request"));
    expect(negotiation.status).toBe(501);
    expect(await negotiation.json()).toMatchObject({ "@type": "ContractNegotiationError", code: "501" });
    const unknown = await ask(message, dsp.replace("alphaklinik-berlin", "no-such-context"));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).reason).toEqual(["no active participant no-such-context at this address"]);
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
      issuer: h.ds.local!.issuerDid,
      credentialSubject: { id: PHARMACO_DID, ehdsParticipantType: "DATA_USER" },
    });
    expect(vc.issuanceDate).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const didDoc = await (
      await fetch(`${h.ds.local!.url}/dids/${encodeURIComponent(h.ds.local!.issuerDid)}`)
    ).json();
    const key = await importJWK(didDoc.verificationMethod[0].publicKeyJwk, "EdDSA");
    const { payload } = await jwtVerify(vc.proof.jwt, key, {
      issuer: h.ds.local!.issuerDid,
      subject: PHARMACO_DID,
    });
    expect((payload.vc as { credentialSubject: unknown }).credentialSubject).toEqual(vc.credentialSubject);
    // as a real IdentityHub: a participant it does not have holds none
    expect((await call("GET /api/participants/:id/credentials", { params: { id: "nobody" } })).body).toEqual(
      [],
    );
  });
});

describe("credential issuance and revocation", () => {
  it("issues a requested credential through the identity hub, and revokes it at the issuer", async () => {
    const definitions = await h.ds.listCredentialDefinitions();
    expect(definitions.map((d) => d.credentialType).sort()).toEqual([
      "DataProcessingPurposeCredential",
      "DataQualityLabelCredential",
      "EHDSParticipantCredential",
    ]);
    const started = await h.ds.requestCredential("pharmaco", "DataProcessingPurposeCredential", "researcher");
    expect(started).toMatchObject({ status: "REQUESTED", issuerDid: h.ds.local!.issuerDid });
    const held = await until(
      () => h.ds.participantCredentials("pharmaco"),
      (list) => list.some((c) => c.type.includes("DataProcessingPurposeCredential")),
    );
    const purpose = held.find((c) => c.type.includes("DataProcessingPurposeCredential"))!;
    expect(purpose.credentialSubject).toMatchObject({ id: PHARMACO_DID, purpose: "SCIENTIFIC_RESEARCH" });
    expect(purpose.status).toBe("ISSUED");

    const issued = await h.ds.runtime.issuer!.listCredentials(PHARMACO_DID);
    const record = issued.find((c) =>
      (c.credential.type as string[]).includes("DataProcessingPurposeCredential"),
    )!;
    await h.ds.revokeCredential(record.id, "admin");
    expect(await h.ds.runtime.issuer!.credentialStatus(record.id)).toMatchObject({ status: "revocation" });
    const after = await h.ds.participantCredentials("pharmaco");
    expect(after.find((c) => c.type.includes("DataProcessingPurposeCredential"))!.status).toBe("REVOKED");
    await expect(h.ds.revokeCredential("no-such-credential")).rejects.toMatchObject({ status: 404 });
    await expect(h.ds.requestCredential("pharmaco", "NoSuchCredential")).rejects.toMatchObject({
      status: 400,
    });
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

  it("registers an asset (version 1.0.0) that then appears in the list and, offered, in the provider catalogue", async () => {
    const created = await call("POST /api/assets", {
      as: "clinic",
      body: {
        participantId: "alphaklinik-berlin",
        assetId: "fhir-oncology-2025",
        name: "Oncology cohort 2025",
        policyId: "policy-secondary-use",
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
      baseUrl: "http://127.0.0.1:3999/internal/graph-bridge/assets/alphaklinik-berlin/fhir-oncology-2025",
    });
    // without a policy it is registered only, as at a new EDC connector: no contract definition offers it
    const unoffered = await call("POST /api/assets", {
      as: "clinic",
      body: { participantId: "alphaklinik-berlin", assetId: "fhir-oncology-draft", name: "Oncology draft" },
    });
    expect(unoffered.status).toBe(201);
    const { summary } = await alphaOffer();
    expect(summary.datasets.map((d) => d.id)).toContain("fhir-oncology-2025");
    expect(summary.datasets.map((d) => d.id)).not.toContain("fhir-oncology-draft");
  });

  const alpha = "alphaklinik-berlin";
  /** a policy definition written at the embedded connector, as POST /api/admin/policies leaves it */
  const policyAt = (participantId: string, id: string) =>
    h.ds.runtime.connector.createPolicyDefinition(participantId, {
      "@context": ["https://w3id.org/edc/connector/management/v2"],
      "@type": "PolicyDefinition",
      "@id": id,
      policy: {
        "@type": "Set",
        permission: [{ action: "use" }],
        prohibition: [{ action: "odrl:distribute" }],
      },
    });
  const listed = async () =>
    (await call("GET /api/assets", { query: { participantId: alpha } })).body.map((a: JsonBody) => a["@id"]);

  it("with a policyId: offered in the provider catalogue under that policy, by the contract definition <assetId>-offer", async () => {
    await policyAt(alpha, "offer-policy-1");
    const created = await call("POST /api/assets", {
      as: "clinic",
      body: { participantId: alpha, assetId: "offered-asset-1", name: "Offered", policyId: "offer-policy-1" },
    });
    expect([created.status, created.body["@id"]]).toEqual([201, "offered-asset-1"]);
    const { summary } = await alphaOffer();
    const offers = summary.datasets.find((d) => d.id === "offered-asset-1")!.offers;
    const ours = offers.filter((o) => decodeOfferId(o.id)?.definitionId === "offered-asset-1-offer");
    expect(ours).toHaveLength(1);
    expect(ours[0].policy).toMatchObject({
      "odrl:permission": [{ action: "use" }],
      "odrl:prohibition": [{ action: "odrl:distribute" }],
    });
    expect(audit.at(-1)).toMatchObject({
      action: "asset.create",
      outcome: "success",
      target: `${alpha}: offered-asset-1 (offered as offered-asset-1-offer under offer-policy-1)`,
    });
  });

  it("a policyId that is not the participant's (another's, or none): 400 naming it, no asset", async () => {
    await policyAt("lmc", "lmc-only-policy");
    for (const policyId of ["lmc-only-policy", "no-such-policy"]) {
      const res = await call("POST /api/assets", {
        as: "clinic",
        body: { participantId: alpha, assetId: "not-offered-1", name: "Not offered", policyId },
      });
      expect([res.status, res.body]).toEqual([
        400,
        {
          error: `policyId must be a policy definition that ${alpha} holds at its connector: ${policyId} is not`,
        },
      ]);
    }
    expect(await listed()).not.toContain("not-offered-1");
  });

  it("a contract definition the connector refuses (its id is taken): the asset removed again, 502 with a detail, the other definition kept", async () => {
    await policyAt(alpha, "offer-policy-2");
    const taken = buildContractDefinition("someone-elses", "offer-policy-2");
    await h.ds.runtime.connector.createContractDefinition(alpha, { ...taken, "@id": "half-asset-1-offer" });
    const res = await call("POST /api/assets", {
      as: "clinic",
      body: { participantId: alpha, assetId: "half-asset-1", name: "Half", policyId: "offer-policy-2" },
    });
    expect([res.status, res.body.error]).toEqual([502, "Failed to create asset"]);
    expect(res.body.detail).toMatch(/half-asset-1-offer .*409.*; the asset was removed again$/);
    expect(await listed()).not.toContain("half-asset-1");
    // the definition that was there already is not the hub's to remove: its id is still taken
    await expect(
      h.ds.runtime.connector.createContractDefinition(alpha, { ...taken, "@id": "half-asset-1-offer" }),
    ).rejects.toMatchObject({ status: 409 });
    expect(audit.at(-1)).toMatchObject({ action: "asset.create", outcome: "failure" });
  });
});

describe("restart", () => {
  it("keeps its state across a restart and resumes negotiations that were under way", async () => {
    const { offerId } = await alphaOffer();
    const pending = await call("POST /api/negotiations", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        counterPartyAddress: h.ds.local!.protocolBaseUrl,
        counterPartyId: "alphaklinik-berlin",
        providerDid: ALPHA_DID,
        offerId,
        assetId: "fhir-cohort-bundle",
      },
    });
    const before = await call("GET /api/negotiations", { query: { participantId: "pharmaco" } });
    const participantsBefore = (await call("GET /api/participants")).body.length;
    await h.ds.close();

    await h.open();
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
