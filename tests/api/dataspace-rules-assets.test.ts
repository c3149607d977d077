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
