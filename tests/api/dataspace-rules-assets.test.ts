import { describe, expect, it } from "vitest";
import { bundledDemoRecords } from "../../server/dataspace/demo-records";
import { type JsonBody, CTX, ALPHA_DID, MGMT, call, dataspaceRulesHarness } from "./dataspace-rules.support";

/** assets, merging live and demonstration records (the data behind an asset: server/dataspace/graph-data-source.test.ts) */

const h = dataspaceRulesHarness();
const TERMS = "https://w3id.org/health-dataspace-hub/v0.0.1/ns/";
const { dataspace } = h;

describe("assets", () => {
  it("registers an asset with version 1.0.0, its terms (default the most restrictive) and, by default, an HttpData address at the graph bridge with the asset's own code", async () => {
    const ds = await dataspace();
    h.double.on("POST", `${MGMT}/alpha/assets`, { json: { "@type": "IdResponse", "@id": "a-1" } });
    const res = await call(ds, "POST /api/assets", {
      body: { participantId: "alpha", assetId: "a-1", name: "Cohort" },
    });
    expect(res.status).toBe(201);
    expect(h.double.requests[0].body).toEqual({
      "@context": [CTX],
      "@type": "Asset",
      "@id": "a-1",
      properties: {
        name: "Cohort",
        description: "",
        contenttype: "application/json",
        version: "1.0.0",
        [`${TERMS}disclosure`]: "aggregate",
        [`${TERMS}datasets`]: ["a-1"],
      },
      dataAddress: {
        "@type": "DataAddress",
        type: "HttpData",
        baseUrl: "http://127.0.0.1:3999/internal/graph-bridge/assets/alpha/a-1",
        authKey: "X-Graph-Bridge-Key",
        authCode: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      },
    });
    await call(ds, "POST /api/assets", {
      body: {
        participantId: "alpha",
        assetId: "a-2",
        name: "Ext",
        description: "d",
        contentType: "text/csv",
        dataAddress: { type: "HttpData", baseUrl: "https://data.example/x" },
        datasets: ["dataset-ext", "dataset-ext-2"],
        disclosure: "pseudonymised",
      },
    });
    expect((h.double.requests[1].body as Record<string, unknown>).properties).toEqual({
      name: "Ext",
      description: "d",
      contenttype: "text/csv",
      version: "1.0.0",
      [`${TERMS}disclosure`]: "pseudonymised",
      [`${TERMS}datasets`]: ["dataset-ext", "dataset-ext-2"],
    });
    expect((h.double.requests[1].body as Record<string, unknown>).dataAddress).toEqual({
      "@type": "DataAddress",
      type: "HttpData",
      baseUrl: "https://data.example/x",
    });
  });

  it("normalises assets: name defaults to @id, description and contenttype to '', also under the connector prefix", async () => {
    const ds = await dataspace();
    h.double.on("POST", `${MGMT}/alpha/assets/request`, {
      json: [
        { "@id": "bare", "@type": "Asset", properties: {}, dataAddress: { type: "HttpData" } },
        {
          "@id": "named",
          properties: { name: "Named", description: "D", contenttype: "text/csv", custom: 1 },
        },
        {
          "@id": "prefixed",
          "@context": { ns: "https://w3id.org/edc/v0.0.1/ns/" },
          properties: { "ns:name": "Prefixed" },
        },
      ],
    });
    const res = await call(ds, "GET /api/assets", { query: { participantId: "alpha" } });
    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual({
      "@id": "bare",
      "@type": "Asset",
      properties: {},
      dataAddress: { type: "HttpData" },
      name: "bare",
      description: "",
      contenttype: "",
      "edc:name": "bare",
      "edc:description": "",
      "edc:contenttype": "",
    });
    expect(res.body[1]).toMatchObject({
      name: "Named",
      description: "D",
      contenttype: "text/csv",
      "edc:name": "Named",
      properties: { custom: 1 },
    });
    expect(res.body[2]).toMatchObject({ name: "Prefixed", "ns:name": "Prefixed", "ns:description": "" });
    expect(h.double.requests[0].body).toMatchObject({ "@context": [CTX], "@type": "QuerySpec" });
  });

  it("groups per ACTIVATED (or state-less) context, an empty list for a failing context, demo merged by identity and @id", async () => {
    const ds = await dataspace();
    h.double
      .on("GET", MGMT, {
        json: [
          { "@id": "c-alpha", identity: ALPHA_DID, state: "ACTIVATED" },
          { "@id": "c-lmc", participantId: "did:web:lmc.nl:participant", identity: "not-the-did" },
          { "@id": "c-new", identity: "did:web:x:new", state: "CREATED" },
          { "@id": "c-broken", identity: "did:web:x:broken", state: "ACTIVATED" },
        ],
      })
      .on("POST", `${MGMT}/c-alpha/assets/request`, {
        json: [{ "@id": "fhir-cohort-bundle", properties: { name: "Live bundle" } }],
      })
      .on("POST", `${MGMT}/c-lmc/assets/request`, { json: [] })
      .on("POST", `${MGMT}/c-broken/assets/request`, { status: 500 });
    const res = await call(ds, "GET /api/assets");
    expect(res.status).toBe(200);
    expect(res.body.map((g: JsonBody) => [g.participantId, g.identity])).toEqual([
      ["c-alpha", ALPHA_DID],
      ["c-lmc", "did:web:lmc.nl:participant"],
      ["c-broken", "did:web:x:broken"],
    ]);
    const [alpha, lmc, broken] = res.body;
    expect(alpha.assets.map((a: JsonBody) => [a["@id"], a.name, a._demo ?? false])).toEqual([
      ["fhir-cohort-bundle", "Live bundle", false],
      ["omop-cohort-statistics", "OMOP CDM cohort statistics", true],
    ]);
    expect(lmc.assets.map((a: JsonBody) => a["@id"])).toEqual([
      "fhir-patient-everything",
      "healthdcatap-catalog",
    ]);
    expect(broken.assets).toEqual([]);
  });

  it("appends a whole demonstration entry whose identity matches no live entry", async () => {
    const ds = await dataspace();
    h.double
      .on("GET", MGMT, { json: [{ "@id": "c-alpha", identity: ALPHA_DID, state: "ACTIVATED" }] })
      .on("POST", `${MGMT}/c-alpha/assets/request`, { json: [] });
    const res = await call(ds, "GET /api/assets");
    expect(res.body.map((g: JsonBody) => g.participantId)).toEqual(["c-alpha", "lmc"]);
    expect(res.body[1]).toEqual(bundledDemoRecords().assetGroups()[1]);
  });
});

describe("merging live and demonstration records", () => {
  it("lists live negotiations first and drops demonstration records with a live @id", async () => {
    const ds = await dataspace();
    const demo = bundledDemoRecords().sharedOf("pharmaco").negotiations;
    h.double.on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, {
      json: [
        { "@id": "live-1", "@type": "ContractNegotiation", state: "REQUESTED" },
        {
          "@id": demo[0]["@id"],
          "@type": "ContractNegotiation",
          state: "TERMINATED",
          contractAgreementId: "agr-live",
        },
      ],
    });
    const res = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(res.status).toBe(200);
    expect(res.body.map((n: JsonBody) => n["@id"])).toEqual([
      "live-1",
      demo[0]["@id"],
      ...demo.slice(1).map((n) => n["@id"]),
    ]);
    expect(res.body[1]).toEqual({
      "@id": demo[0]["@id"],
      "@type": "ContractNegotiation",
      state: "TERMINATED",
      contractAgreementId: "agr-live",
      contractId: "agr-live",
    });
    expect(h.double.requests[0].body).toMatchObject({ "@context": [CTX], "@type": "QuerySpec", offset: 0 });
  });

  it("does the same for transfers", async () => {
    const ds = await dataspace();
    // pharmaco's own (the bundle holds each transfer on both sides, issue 40)
    const demo = bundledDemoRecords().sharedOf("pharmaco").transfers;
    h.double.on("POST", `${MGMT}/pharmaco/transferprocesses/request`, {
      json: [{ "@id": demo[1]["@id"], state: "COMPLETED" }],
    });
    const res = await call(ds, "GET /api/transfers", { query: { participantId: "pharmaco" } });
    expect(res.body.map((t: JsonBody) => t["@id"])).toEqual([demo[1]["@id"], demo[0]["@id"]]);
    expect(res.body[0]._demo).toBeUndefined();
  });

  it("merges nothing with DEMO_RECORDS=off", async () => {
    const ds = await dataspace({ DEMO_RECORDS: "off" });
    h.double.on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, {
      json: [{ "@id": "live-1", state: "REQUESTED" }],
    });
    const res = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(res.body).toEqual([{ "@id": "live-1", state: "REQUESTED" }]);
  });
});

describe("an asset offered under a policy (POST /api/assets with policyId, decision 0108)", () => {
  const body = { participantId: "alpha", assetId: "a-1", name: "Cohort", policyId: "p-1" };
  const definition = {
    "@context": [CTX],
    "@type": "ContractDefinition",
    "@id": "a-1-offer",
    accessPolicyId: "p-1",
    contractPolicyId: "p-1",
    assetsSelector: [
      {
        "@type": "Criterion",
        operandLeft: "https://w3id.org/edc/v0.0.1/ns/id",
        operator: "=",
        operandRight: "a-1",
      },
    ],
  };
  const asked = () => h.double.requests.map((r) => `${r.method} ${r.path}`);
  const noContent = { reply: () => ({ status: 204 }) };

  for (const [shape, env, base] of [
    ["participant-scoped (embedded, virtual connector)", {}, `${MGMT}/alpha`],
    [
      "runtime-scoped (EDC 0.15 v4beta)",
      { CONNECTOR_API_VERSION: "v4beta", CONNECTOR_PARTICIPANT_ID: "alpha" },
      "/mgmt/v4beta",
    ],
  ] as const) {
    it(`${shape}: checks the policy, registers the asset, then offers it by the contract definition <assetId>-offer`, async () => {
      const ds = await dataspace(env);
      h.double
        .on("GET", `${base}/policydefinitions/p-1`, { json: { "@id": "p-1", policy: { "@type": "Set" } } })
        .on("POST", `${base}/assets`, { json: { "@type": "IdResponse", "@id": "a-1" } })
        .on("POST", `${base}/contractdefinitions`, { json: { "@type": "IdResponse", "@id": "a-1-offer" } });
      const res = await call(ds, "POST /api/assets", { body });
      expect([res.status, res.body]).toEqual([201, { "@type": "IdResponse", "@id": "a-1" }]);
      expect(asked()).toEqual([
        `GET ${base}/policydefinitions/p-1`,
        `POST ${base}/assets`,
        `POST ${base}/contractdefinitions`,
      ]);
      expect(h.double.requests[2].body).toEqual(definition);
    });
  }

  it("without policyId: the asset only, as before (no policy read, no contract definition)", async () => {
    const ds = await dataspace();
    h.double.on("POST", `${MGMT}/alpha/assets`, { json: { "@type": "IdResponse", "@id": "a-1" } });
    const res = await call(ds, "POST /api/assets", { body: { ...body, policyId: " " } });
    expect(res.status).toBe(201);
    expect(asked()).toEqual([`POST ${MGMT}/alpha/assets`]);
  });

  it("a policy the participant does not hold: 400 naming it, nothing written; a malformed one: 400, nothing asked", async () => {
    const ds = await dataspace();
    h.double.on("GET", `${MGMT}/alpha`, { json: { "@id": "alpha", identity: ALPHA_DID } });
    const res = await call(ds, "POST /api/assets", { body });
    expect([res.status, res.body]).toEqual([
      400,
      { error: "policyId must be a policy definition that alpha holds at its connector: p-1 is not" },
    ]);
    expect(asked()).toEqual([`GET ${MGMT}/alpha/policydefinitions/p-1`, `GET ${MGMT}/alpha`]);

    h.double.reset();
    const bad = await call(ds, "POST /api/assets", { body: { ...body, policyId: "../p" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^policyId is not a valid identifier/);
    expect(asked()).toEqual([]);
  });

  it("an unknown participant context: the asset's 404, nothing written", async () => {
    const ds = await dataspace();
    const res = await call(ds, "POST /api/assets", { body });
    expect([res.status, res.body]).toEqual([
      404,
      { error: "The participant context is not known to the connector" },
    ]);
    expect(asked().filter((a) => a.startsWith("POST"))).toEqual([]);
  });

  it("the connector fails the policy read: the spec's 502 with a detail, nothing written", async () => {
    const ds = await dataspace();
    h.double.on("GET", `${MGMT}/alpha/policydefinitions/p-1`, { status: 500 });
    const res = await call(ds, "POST /api/assets", { body });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe("Failed to create asset");
    expect(res.body.detail).toMatch(/500/);
    expect(asked()).toEqual([`GET ${MGMT}/alpha/policydefinitions/p-1`]);
  });

  it("the connector does not take the contract definition: the asset (and the definition) removed again, the spec's 502 saying so", async () => {
    const ds = await dataspace();
    h.double
      .on("GET", `${MGMT}/alpha/policydefinitions/p-1`, { json: { "@id": "p-1" } })
      .on("POST", `${MGMT}/alpha/assets`, { json: { "@type": "IdResponse", "@id": "a-1" } })
      .on("POST", `${MGMT}/alpha/contractdefinitions`, { status: 500 })
      .on("DELETE", `${MGMT}/alpha/contractdefinitions/a-1-offer`, { status: 404 })
      .on("DELETE", `${MGMT}/alpha/assets/a-1`, noContent);
    const res = await call(ds, "POST /api/assets", { body });
    expect(res.status).toBe(502);
    expect(res.body.error).toBe("Failed to create asset");
    expect(res.body.detail).toMatch(/contract definition a-1-offer .*500.*; the asset was removed again$/);
    expect(asked().slice(2)).toEqual([
      `POST ${MGMT}/alpha/contractdefinitions`,
      `DELETE ${MGMT}/alpha/contractdefinitions/a-1-offer`,
      `DELETE ${MGMT}/alpha/assets/a-1`,
    ]);
  });

  it("a definition id the connector holds already (409): that definition is left alone, the asset removed; a failed removal is said", async () => {
    const ds = await dataspace();
    h.double
      .on("GET", `${MGMT}/alpha/policydefinitions/p-1`, { json: { "@id": "p-1" } })
      .on("POST", `${MGMT}/alpha/assets`, { json: { "@type": "IdResponse", "@id": "a-1" } })
      .on("POST", `${MGMT}/alpha/contractdefinitions`, { status: 409 })
      .on("DELETE", `${MGMT}/alpha/assets/a-1`, noContent);
    const res = await call(ds, "POST /api/assets", { body });
    expect([res.status, res.body.error]).toEqual([502, "Failed to create asset"]);
    expect(asked().slice(2)).toEqual([
      `POST ${MGMT}/alpha/contractdefinitions`,
      `DELETE ${MGMT}/alpha/assets/a-1`,
    ]);

    h.double.on("DELETE", `${MGMT}/alpha/assets/a-1`, { status: 503 });
    const stuck = await call(ds, "POST /api/assets", { body });
    expect(stuck.status).toBe(502);
    expect(stuck.body.detail).toMatch(
      /removing the asset again failed too \(.*503.*\): it is registered but not offered$/,
    );
  });
});
