import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findPersona } from "../../server/auth/personas";
import type { SessionUser } from "../../server/auth/user";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { normaliseCounterPartyAddress } from "../../server/dataspace/address";
import { bundledDemoRecords } from "../../server/dataspace/demo-records";
import { graphDataSource } from "../../server/dataspace/graph-data-source";
import type { GraphStore } from "../../server/graph/store";
import { dataspaceHandlers } from "../../server/dataspace/handlers";
import { errorResponse } from "../../server/http/errors";
import type { HandlerContext } from "../../server/http/handler";
import type { Services } from "../../server/services";
import { openDatabase, type Db } from "../../server/storage/database";
import { closedPortUrl, startUpstreamDouble, type UpstreamDouble } from "../support/upstream-double";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type JsonBody = any;
/**
 * The rules of spec section 4 (Negotiations, Transfers, Assets, Participants) checked black-box
 * against an upstream double that records what the hub sends: every 400 text, the counter-party
 * address normalisation, the exact ContractRequest / TransferRequest / Asset bodies, the
 * demonstration transfer rule, merge and de-duplication, display-name resolution, the slug rule,
 * and the client-credentials token.
 */

const CTX = "https://w3id.org/edc/connector/management/v0.0.1";
const ALPHA_DID = "did:web:alpha-klinik.de:participant";
const MGMT = "/mgmt/v4alpha/participants";
const TM = "/tm/api/v1alpha1";

let double: UpstreamDouble;
const opened: { ds: Dataspace; db: Db }[] = [];

async function dataspace(env: Record<string, string> = {}): Promise<Dataspace> {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3999",
    CONNECTOR_MANAGEMENT_URL: `${double.url}/mgmt`,
    TENANT_MANAGER_URL: `${double.url}/tm`,
    UPSTREAM_TIMEOUT_MS: "1000",
    ...env,
  });
  const db = openDatabase(":memory:");
  const ds = await createDataspace(config, { db });
  opened.push({ ds, db });
  return ds;
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
  };
}

async function call(
  ds: Dataspace,
  key: string,
  opts: {
    query?: Record<string, string>;
    body?: unknown;
    raw?: string;
    params?: Record<string, string>;
    as?: string;
  } = {},
) {
  const [method, route] = key.split(" ");
  const url = new URL(
    `http://hub.test${route.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(opts.params?.[n] ?? n))}`,
  );
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const hasBody = opts.body !== undefined || opts.raw !== undefined;
  const request = new Request(url, {
    method,
    headers: hasBody ? { "content-type": "application/json" } : {},
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const ctx: HandlerContext<Services> = {
    request,
    url,
    params: opts.params ?? {},
    user: user(opts.as ?? "admin"),
    services: { dataspace: ds } as unknown as Services,
  };
  let res: Response;
  try {
    res = await dataspaceHandlers[key](ctx);
  } catch (e) {
    res = errorResponse(e);
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(async () => {
  for (const { ds, db } of opened) {
    await ds.close();
    db.close();
  }
  await double?.close();
});
beforeEach(() => double.reset());

describe("400 answers, word for word, and nothing sent upstream", () => {
  const cases: [string, { query?: Record<string, string>; body?: unknown; raw?: string }, string][] = [
    ["GET /api/negotiations", {}, "participantId query parameter is required"],
    ["GET /api/negotiations", { query: { participantId: "" } }, "participantId query parameter is required"],
    [
      "GET /api/negotiations",
      { query: { participantId: "pharmaco", catalog: "true" } },
      "providerDid is required for catalog fetch",
    ],
    [
      "POST /api/negotiations",
      { body: { counterPartyAddress: "http://p", assetId: "a", offerId: "o" } },
      "participantId, counterPartyAddress, and assetId are required",
    ],
    [
      "POST /api/negotiations",
      { body: { participantId: "c", assetId: "a", offerId: "o" } },
      "participantId, counterPartyAddress, and assetId are required",
    ],
    [
      "POST /api/negotiations",
      { body: { participantId: "c", counterPartyAddress: "http://p", assetId: "  ", offerId: "o" } },
      "participantId, counterPartyAddress, and assetId are required",
    ],
    ["GET /api/transfers", {}, "participantId query parameter is required"],
    [
      "POST /api/transfers",
      { body: { participantId: "c", contractId: "x" } },
      "participantId, contractId, and counterPartyAddress are required",
    ],
    [
      "POST /api/transfers",
      { body: { contractId: "x", counterPartyAddress: "http://p" } },
      "participantId, contractId, and counterPartyAddress are required",
    ],
    [
      "POST /api/assets",
      { body: { participantId: "c", assetId: "a" } },
      "participantId, assetId, and name are required",
    ],
    [
      "POST /api/assets",
      { body: { assetId: "a", name: "n" } },
      "participantId, assetId, and name are required",
    ],
    ["POST /api/participants", { body: { displayName: "X" } }, "displayName and role are required"],
    ["POST /api/participants", { body: { role: "DATA_USER" } }, "displayName and role are required"],
    ["POST /api/negotiations", { raw: "{not json" }, "Request body must be valid JSON"],
  ];

  it.each(cases)("%s %j", async (key, opts, error) => {
    const ds = await dataspace();
    const res = await call(ds, key, opts);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
    expect(double.requests).toHaveLength(0);
  });

  it("POST /api/negotiations without offerId or policyId says offerId is required and the catalogue comes first", async () => {
    const ds = await dataspace();
    const res = await call(ds, "POST /api/negotiations", {
      body: { participantId: "c", counterPartyAddress: "http://p", assetId: "a" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^offerId is required/);
    expect(res.body.error).toMatch(/fetch the provider catalog first/);
    expect(double.requests).toHaveLength(0);
  });

  it("POST /api/transfers refuses an unknown transferType", async () => {
    const ds = await dataspace();
    const res = await call(ds, "POST /api/transfers", {
      body: { participantId: "c", contractId: "x", counterPartyAddress: "http://p", transferType: "FTP" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/HttpData-PULL, HttpData-PUSH/);
  });
});

describe("counter-party address normalisation", () => {
  const cases: [string, string | undefined, string][] = [
    ["http://provider:8082/api/dsp", "ctx-1", "http://provider:8082/api/dsp/ctx-1/2025-1"],
    ["http://provider:8082/api/dsp///", "ctx-1", "http://provider:8082/api/dsp/ctx-1/2025-1"],
    ["http://provider:8082/api/dsp/ctx-1", "ctx-1", "http://provider:8082/api/dsp/ctx-1/2025-1"],
    ["http://provider:8082/api/dsp/ctx-1/", "ctx-1", "http://provider:8082/api/dsp/ctx-1/2025-1"],
    ["http://provider:8082/api/dsp/ctx-1/2025-1/", "ctx-1", "http://provider:8082/api/dsp/ctx-1/2025-1"],
    ["http://provider:8082/api/dsp/2025-1", "ctx-1", "http://provider:8082/api/dsp/2025-1"],
    ["http://provider:8082/api/dsp", undefined, "http://provider:8082/api/dsp/2025-1"],
  ];
  it.each(cases)("%s with %s -> %s", async (address, counterPartyId, expected) => {
    expect(normaliseCounterPartyAddress(address, counterPartyId)).toBe(expected);
    const ds = await dataspace();
    double.on("POST", `${MGMT}/pharmaco/contractnegotiations`, {
      json: { "@type": "IdResponse", "@id": "neg-1" },
    });
    const res = await call(ds, "POST /api/negotiations", {
      body: {
        participantId: "pharmaco",
        counterPartyAddress: address,
        counterPartyId,
        providerDid: ALPHA_DID,
        offerId: "offer-1",
        assetId: "asset-1",
      },
    });
    expect(res.status).toBe(201);
    expect((double.requests[0].body as { counterPartyAddress: string }).counterPartyAddress).toBe(expected);
  });
});

describe("the contract request sent to the connector", () => {
  const send = async (body: Record<string, unknown>) => {
    const ds = await dataspace();
    double.on("POST", `${MGMT}/pharmaco/contractnegotiations`, {
      json: { "@type": "IdResponse", "@id": "neg-42", createdAt: 1700000000000 },
    });
    const res = await call(ds, "POST /api/negotiations", {
      body: {
        participantId: "pharmaco",
        counterPartyAddress: "http://p/api/dsp",
        assetId: "fhir-cohort-bundle",
        ...body,
      },
    });
    return { res, sent: double.received("POST", `${MGMT}/pharmaco/contractnegotiations`) };
  };

  it("is DSP 2025-1 with an Offer: @id = offerId, assigner = providerDid, target = assetId, one permission `use`", async () => {
    const { res, sent } = await send({
      counterPartyId: "alpha-ctx",
      providerDid: ALPHA_DID,
      offerId: "offer-1",
      policyId: "legacy-1",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ "@type": "IdResponse", "@id": "neg-42", createdAt: 1700000000000 });
    expect(sent).toHaveLength(1);
    expect(sent[0].headers["content-type"]).toMatch(/application\/json/);
    expect(sent[0].body).toEqual({
      "@context": [CTX],
      "@type": "ContractRequest",
      counterPartyAddress: "http://p/api/dsp/alpha-ctx/2025-1",
      protocol: "dataspace-protocol-http:2025-1",
      policy: {
        "@type": "Offer",
        "@id": "offer-1",
        assigner: ALPHA_DID,
        target: "fhir-cohort-bundle",
        permission: [{ action: "use" }],
      },
    });
  });

  it("uses policyId when offerId is absent, and the counter-party id as assigner without a provider DID", async () => {
    const { sent } = await send({ counterPartyId: "alpha-ctx", policyId: "legacy-1" });
    expect((sent[0].body as { policy: unknown }).policy).toEqual({
      "@type": "Offer",
      "@id": "legacy-1",
      assigner: "alpha-ctx",
      target: "fhir-cohort-bundle",
      permission: [{ action: "use" }],
    });
  });

  it("has an empty assigner when neither providerDid nor counterPartyId is given", async () => {
    const { sent } = await send({ offerId: "offer-9" });
    expect((sent[0].body as { policy: { assigner: string } }).policy.assigner).toBe("");
    expect((sent[0].body as { policy: unknown }).policy).not.toHaveProperty("prohibition");
    expect((sent[0].body as { policy: unknown }).policy).not.toHaveProperty("obligation");
  });

  it("asks the consumer's connector for the provider catalogue by DID and answers it unchanged", async () => {
    const ds = await dataspace();
    const catalog = {
      "@type": "dcat:Catalog",
      "dcat:dataset": [{ "@id": "a1", "odrl:hasPolicy": [{ "@id": "offer-a1" }] }],
    };
    double.on("POST", `${MGMT}/pharmaco/catalog/request`, { json: catalog });
    const res = await call(ds, "GET /api/negotiations", {
      query: { participantId: "pharmaco", catalog: "true", providerDid: ALPHA_DID },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(catalog);
    expect(double.requests[0].body).toMatchObject({
      "@context": [CTX],
      "@type": "CatalogRequest",
      counterPartyId: ALPHA_DID,
      protocol: "dataspace-protocol-http:2025-1",
    });
    expect(ds.summariseCatalog(res.body).datasets[0].offers[0].id).toBe("offer-a1");
  });
});

describe("transfers", () => {
  const demoIds = [
    "agreement-fhir-cohort-bundle-001",
    "agreement-fhir-x-123",
    "agreement-fhir-a_b-c-999",
    "agreement-fhir---000",
  ];
  it.each(demoIds)(
    "%s is a demonstration contract: 201 demo TransferProcess, nothing sent",
    async (contractId) => {
      const ds = await dataspace();
      const res = await call(ds, "POST /api/transfers", {
        body: {
          participantId: "pharmaco",
          contractId,
          counterPartyAddress: "http://p/api/dsp",
          assetId: "fhir-cohort-bundle",
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        "@type": "TransferProcess",
        state: "REQUESTED",
        type: "CONSUMER",
        contractId,
        assetId: "fhir-cohort-bundle",
        counterPartyAddress: "http://p/api/dsp",
        transferType: "HttpData-PULL",
        _demo: true,
      });
      expect(res.body["@id"]).toMatch(/^transfer-demo-/);
      expect(res.body.stateTimestamp).toEqual(expect.any(Number));
      expect(double.requests).toHaveLength(0);
    },
  );

  const liveIds = [
    "agreement-fhir-x-12",
    "agreement-fhir-x-1234",
    "agreement-fhir--001",
    "agreement-omop-x-001",
    "xagreement-fhir-x-001",
    "agreement-fhir-x-001 ",
    "agr-456",
  ];
  it.each(liveIds)(
    "%s goes to the connector as a TransferRequest with an HttpProxy destination",
    async (contractId) => {
      const ds = await dataspace();
      double.on("POST", `${MGMT}/pharmaco/transferprocesses`, {
        json: { "@type": "IdResponse", "@id": "tp-1" },
      });
      const res = await call(ds, "POST /api/transfers", {
        body: { participantId: "pharmaco", contractId, counterPartyAddress: "http://p/api/dsp/alpha/2025-1" },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ "@type": "IdResponse", "@id": "tp-1" });
      expect(double.received("POST", `${MGMT}/pharmaco/transferprocesses`)[0].body).toEqual({
        "@context": [CTX],
        "@type": "TransferRequest",
        protocol: "dataspace-protocol-http:2025-1",
        counterPartyAddress: "http://p/api/dsp/alpha/2025-1",
        contractId,
        assetId: "",
        transferType: "HttpData-PULL",
        dataDestination: { "@type": "DataAddress", type: "HttpProxy" },
      });
    },
  );
});

describe("assets", () => {
  it("registers an asset with version 1.0.0 and, by default, an HttpData address at the graph bridge", async () => {
    const ds = await dataspace();
    double.on("POST", `${MGMT}/alpha/assets`, { json: { "@type": "IdResponse", "@id": "a-1" } });
    const res = await call(ds, "POST /api/assets", {
      body: { participantId: "alpha", assetId: "a-1", name: "Cohort" },
    });
    expect(res.status).toBe(201);
    expect(double.requests[0].body).toEqual({
      "@context": [CTX],
      "@type": "Asset",
      "@id": "a-1",
      properties: { name: "Cohort", description: "", contenttype: "application/json", version: "1.0.0" },
      dataAddress: {
        "@type": "DataAddress",
        type: "HttpData",
        baseUrl: "http://127.0.0.1:3999/internal/graph-bridge/assets/a-1",
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
      },
    });
    expect((double.requests[1].body as Record<string, unknown>).properties).toEqual({
      name: "Ext",
      description: "d",
      contenttype: "text/csv",
      version: "1.0.0",
    });
    expect((double.requests[1].body as Record<string, unknown>).dataAddress).toEqual({
      "@type": "DataAddress",
      type: "HttpData",
      baseUrl: "https://data.example/x",
    });
  });

  it("normalises assets: name defaults to @id, description and contenttype to '', also under the connector prefix", async () => {
    const ds = await dataspace();
    double.on("POST", `${MGMT}/alpha/assets/request`, {
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
    expect(double.requests[0].body).toMatchObject({ "@context": [CTX], "@type": "QuerySpec" });
  });

  it("groups per ACTIVATED (or state-less) context, an empty list for a failing context, demo merged by identity and @id", async () => {
    const ds = await dataspace();
    double
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
    double
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
    const demo = bundledDemoRecords().negotiations();
    double.on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, {
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
    expect(double.requests[0].body).toMatchObject({ "@context": [CTX], "@type": "QuerySpec", offset: 0 });
  });

  it("does the same for transfers", async () => {
    const ds = await dataspace();
    const demo = bundledDemoRecords().transfers();
    double.on("POST", `${MGMT}/pharmaco/transferprocesses/request`, {
      json: [{ "@id": demo[1]["@id"], state: "COMPLETED" }],
    });
    const res = await call(ds, "GET /api/transfers", { query: { participantId: "pharmaco" } });
    expect(res.body.map((t: JsonBody) => t["@id"])).toEqual([demo[1]["@id"], demo[0]["@id"]]);
    expect(res.body[0]._demo).toBeUndefined();
  });

  it("merges nothing with DEMO_RECORDS=off", async () => {
    const ds = await dataspace({ DEMO_RECORDS: "off" });
    double.on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, {
      json: [{ "@id": "live-1", state: "REQUESTED" }],
    });
    const res = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(res.body).toEqual([{ "@id": "live-1", state: "REQUESTED" }]);
  });
});

describe("participants: display names, roles and slugs", () => {
  const contexts = [
    { "@id": "ctx-alpha-0001", identity: "did:web:identityhub%3A7083:Alpha-Klinik", state: "ACTIVATED" },
    { "@id": "ctx-beta", identity: "did:web:h.example:beta-hospital", state: "ACTIVATED" },
    {
      "@id": "ctx-pharm",
      participantId: "did:web:pharmaco.de:research",
      identity: "did:web:ignored:x",
      state: "ACTIVATED",
    },
    { "@id": "ctx-gamma", identity: "did:web:example.org:Gamma", state: "ACTIVATED" },
    { "@id": "0123456789abcdef-no-did", state: "ACTIVATED" },
    { "@id": "ctx-created", identity: "did:web:x:created", state: "CREATED" },
  ];
  const tenantManager = () =>
    double
      .on("GET", `${TM}/tenants`, {
        json: [
          { id: "t-alpha", properties: { displayName: "Alpha Klinik (tenant)" } },
          { id: "t-beta", properties: { displayName: "Beta Hospital" } },
        ],
      })
      .on("GET", `${TM}/tenants/t-alpha/participants`, {
        json: [{ id: "pp-1", identifier: "did:web:identityhub%3A7083:alpha-klinik" }],
      })
      .on("GET", `${TM}/tenants/t-beta/participants`, { json: [] });

  it("resolves in order: tenant manager, built-in table, slug, first 12 characters of the id", async () => {
    const ds = await dataspace();
    double.on("GET", MGMT, { json: contexts });
    tenantManager();
    const res = await call(ds, "GET /api/participants");
    expect(res.status).toBe(200);
    expect(
      res.body.map((p: JsonBody) => [p.participantId, p.displayName, p.role, p.slug, p.identity]),
    ).toEqual([
      [
        "ctx-alpha-0001",
        "Alpha Klinik (tenant)",
        "DATA_HOLDER",
        "alpha-klinik",
        "did:web:identityhub%3A7083:Alpha-Klinik",
      ],
      ["ctx-beta", "Beta Hospital", "", "beta-hospital", "did:web:h.example:beta-hospital"],
      ["ctx-pharm", "PharmaCo Research AG", "DATA_USER", "research", "did:web:pharmaco.de:research"],
      ["ctx-gamma", "gamma", "", "gamma", "did:web:example.org:Gamma"],
      ["0123456789abcdef-no-did", "0123456789ab", "", "", ""],
    ]);
    expect(res.body[0]).toMatchObject({ "@id": "ctx-alpha-0001", state: "ACTIVATED" }); // the context record passed through
  });

  it("tolerates the tenant manager being down: the built-in table and slugs still name participants", async () => {
    const down = await closedPortUrl();
    const ds = await dataspace({ TENANT_MANAGER_URL: down });
    double.on("GET", MGMT, { json: contexts });
    const res = await call(ds, "GET /api/participants");
    expect(res.status).toBe(200);
    expect(res.body.map((p: JsonBody) => p.displayName)).toEqual([
      "AlphaKlinik Berlin",
      "beta-hospital",
      "PharmaCo Research AG",
      "gamma",
      "0123456789ab",
    ]);
  });

  it("tolerates the tenant manager failing with 500", async () => {
    const ds = await dataspace();
    double.on("GET", MGMT, { json: contexts }).on("GET", `${TM}/tenants`, { status: 500 });
    const res = await call(ds, "GET /api/participants");
    expect(res.body[0].displayName).toBe("AlphaKlinik Berlin");
  });

  it("onboards through the first cell and the first dataspace profile", async () => {
    const ds = await dataspace();
    double
      .on("GET", `${TM}/cells`, { json: [{ id: "cell-1", state: "ACTIVE" }, { id: "cell-2" }] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [{ id: "profile-1" }, { id: "profile-2" }] })
      .on("POST", `${TM}/tenants`, { json: { id: "tenant-9", version: 0, properties: {} }, status: 201 })
      .on("POST", `${TM}/tenants/tenant-9/participants`, {
        json: { id: "pp-9", identifier: "nordklinik" },
        status: 201,
      });
    const res = await call(ds, "POST /api/participants", {
      body: { displayName: "Nord Klinik", role: "DATA_HOLDER" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      tenantId: "tenant-9",
      participantId: "pp-9",
      displayName: "Nord Klinik",
      role: "DATA_HOLDER",
      status: "provisioning",
    });
    expect(double.received("POST", `${TM}/tenants`)[0].body).toEqual({
      properties: {
        displayName: "Nord Klinik",
        organization: "Nord Klinik",
        role: "DATA_HOLDER",
        ehdsParticipantType: "DATA_HOLDER",
      },
    });
    expect(double.received("POST", `${TM}/tenants/tenant-9/participants`)[0].body).toMatchObject({
      identifier: "nord-klinik",
      cellId: "cell-1",
      dataspaceProfileIds: ["profile-1"],
    });
  });

  it("answers 503 when there is no cell, or no dataspace profile, and creates nothing", async () => {
    const ds = await dataspace();
    double
      .on("GET", `${TM}/cells`, { json: [] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [{ id: "p" }] });
    const noCell = await call(ds, "POST /api/participants", {
      body: { displayName: "X", role: "DATA_USER" },
    });
    expect(noCell.status).toBe(503);
    expect(noCell.body.error).toMatch(/cell/);
    double
      .on("GET", `${TM}/cells`, { json: [{ id: "c" }] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [] });
    const noProfile = await call(ds, "POST /api/participants", {
      body: { displayName: "X", role: "DATA_USER" },
    });
    expect(noProfile.status).toBe(503);
    expect(noProfile.body.error).toMatch(/dataspace profile/);
    expect(double.received("POST", `${TM}/tenants`)).toHaveLength(0);
  });
});

describe("tasks from the connector", () => {
  it("turns the negotiations and transfers of the caller's contexts into Task records", async () => {
    const ds = await dataspace({ DEMO_RECORDS: "off" });
    double
      .on("GET", MGMT, {
        json: [
          { "@id": "ctx-p", identity: "did:web:pharmaco.de:research", state: "ACTIVATED" },
          { "@id": "ctx-a", identity: ALPHA_DID, state: "ACTIVATED" },
        ],
      })
      .on("POST", `${MGMT}/ctx-p/contractnegotiations/request`, {
        json: [
          {
            "@id": "n-1",
            state: "AGREED",
            counterPartyId: ALPHA_DID,
            assetId: "fhir-cohort-bundle",
            stateTimestamp: 1750000000000,
          },
        ],
      })
      .on("POST", `${MGMT}/ctx-p/transferprocesses/request`, {
        json: [
          {
            "@id": "t-1",
            state: "STARTED",
            assetId: "fhir-cohort-bundle",
            transferType: "HttpData-PULL",
            stateTimestamp: 1750000100000,
          },
        ],
      })
      .on("POST", `${MGMT}/ctx-a/contractnegotiations/request`, {
        json: [{ "@id": "n-2", state: "REQUESTED", type: "PROVIDER" }],
      })
      .on("POST", `${MGMT}/ctx-a/transferprocesses/request`, { json: [] });
    const res = await call(ds, "GET /api/tasks", { as: "researcher" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: "t-1",
        title: "Transfer fhir-cohort-bundle (HttpData-PULL)",
        state: "STARTED",
        participantId: "ctx-p",
        kind: "transfer",
        updatedAt: new Date(1750000100000).toISOString(),
      },
      {
        id: "n-1",
        title: "Contract for fhir-cohort-bundle with AlphaKlinik Berlin",
        state: "AGREED",
        participantId: "ctx-p",
        kind: "negotiation",
        updatedAt: new Date(1750000000000).toISOString(),
      },
    ]);
    const admin = await call(ds, "GET /api/tasks", { as: "admin" });
    expect(admin.body.map((t: JsonBody) => t.id).sort()).toEqual(["n-1", "n-2", "t-1"]);
  });
});

describe("client-credentials token", () => {
  const tokenEnv = () => ({
    CONNECTOR_TOKEN_URL: `${double.url}/token`,
    CONNECTOR_CLIENT_ID: "hub",
    CONNECTOR_CLIENT_SECRET: "s3cret",
  });

  it("obtains one token, caches it, and sends it on every management request", async () => {
    const ds = await dataspace(tokenEnv());
    double
      .on("POST", "/token", { json: { access_token: "tok-1", token_type: "Bearer", expires_in: 300 } })
      .on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, { json: [] })
      .on("POST", `${MGMT}/pharmaco/transferprocesses/request`, { json: [] });
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    await call(ds, "GET /api/transfers", { query: { participantId: "pharmaco" } });
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    const tokenCalls = double.received("POST", "/token");
    expect(tokenCalls).toHaveLength(1);
    expect(new URLSearchParams(tokenCalls[0].rawBody).get("grant_type")).toBe("client_credentials");
    expect(new URLSearchParams(tokenCalls[0].rawBody).get("client_id")).toBe("hub");
    const mgmt = double.requests.filter((r) => r.path.startsWith("/mgmt"));
    expect(mgmt).toHaveLength(3);
    for (const r of mgmt) expect(r.headers.authorization).toBe("Bearer tok-1");
  });

  it("renews the token shortly before it expires", async () => {
    const ds = await dataspace(tokenEnv());
    let n = 0;
    double
      .on("POST", "/token", { reply: () => ({ json: { access_token: `tok-${++n}`, expires_in: 1 } }) })
      .on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, { json: [] });
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    await new Promise((r) => setTimeout(r, 600));
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(
      double.requests.filter((r) => r.path.startsWith("/mgmt")).map((r) => r.headers.authorization),
    ).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  });

  it("never sends an unauthenticated request when the token call fails", async () => {
    const ds = await dataspace(tokenEnv());
    double.on("POST", "/token", { status: 401, message: "invalid_client" });
    const list = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(list.status).toBe(200); // demonstration records
    expect(list.body.every((n: JsonBody) => n._demo)).toBe(true);
    const create = await call(ds, "POST /api/negotiations", {
      body: { participantId: "pharmaco", counterPartyAddress: "http://p", assetId: "a", offerId: "o" },
    });
    expect(create.status).toBe(502);
    expect(create.body).toEqual({
      error: "Failed to initiate contract negotiation",
      detail: "no access token: token endpoint answered HTTP 401",
    });
    expect(double.requests.filter((r) => r.path.startsWith("/mgmt"))).toHaveLength(0);
  });
});

describe("the default data behind an embedded asset", () => {
  it("is a small FHIR collection Bundle of the provider's patients, pseudonymised", async () => {
    const patients = Array.from({ length: 30 }, (_, i) => ({
      id: `patient-${i}`,
      label: "Patient",
      layer: "l3" as const,
      properties: {
        resourceType: "Patient",
        resourceId: `r-${i}`,
        name: "Jane Doe",
        givenName: "Jane",
        familyName: "Doe",
        city: "Berlin",
        birthDate: "1970-05-02",
        holder: "lmc",
      },
    }));
    const asked: unknown[] = [];
    const graph = {
      findNodes: async (q: { label: string; where?: Record<string, unknown>; limit?: number }) => {
        asked.push(q);
        return patients.slice(0, q.limit);
      },
      relationships: async (q: { id: string; types?: string[] }) => [
        {
          id: `e-${q.id}`,
          type: q.types![0],
          direction: "out",
          node: {
            id: `${q.types![0]}-${q.id}`,
            label: "Condition",
            layer: "l3",
            properties: { code: "44054006" },
          },
        },
      ],
    } as unknown as GraphStore;
    const bundle = (await graphDataSource(graph)("fhir-patient-everything", "lmc")) as {
      resourceType: string;
      type: string;
      total: number;
      entry: { resource: Record<string, unknown> }[];
    };
    expect(asked[0]).toEqual({ label: "Patient", where: { holder: "lmc" }, limit: 10 });
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "collection", total: 50 });
    const patient = bundle.entry[0].resource;
    expect(patient).toMatchObject({ resourceType: "Patient", id: "r-0", birthDate: "1970", holder: "lmc" });
    for (const k of ["name", "givenName", "familyName", "city"]) expect(patient).not.toHaveProperty(k);
  });
});
