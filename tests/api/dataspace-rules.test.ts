import { describe, expect, it } from "vitest";
import { normaliseCounterPartyAddress } from "../../server/dataspace/address";
import { CTX, ALPHA_DID, MGMT, call, dataspaceRulesHarness } from "./dataspace-rules.support";

/** 400 answers, address normalisation, the contract request and transfers */

const h = dataspaceRulesHarness();
const { dataspace } = h;

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
    expect(h.double.requests).toHaveLength(0);
  });

  it("POST /api/negotiations without offerId or policyId says offerId is required and the catalogue comes first", async () => {
    const ds = await dataspace();
    const res = await call(ds, "POST /api/negotiations", {
      body: { participantId: "c", counterPartyAddress: "http://p", assetId: "a" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^offerId is required/);
    expect(res.body.error).toMatch(/fetch the provider catalog first/);
    expect(h.double.requests).toHaveLength(0);
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
    h.double.on("POST", `${MGMT}/pharmaco/contractnegotiations`, {
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
    // the first request reads the consumer's context (whose permit); the contract request follows
    const [sent] = h.double.received("POST", `${MGMT}/pharmaco/contractnegotiations`);
    expect((sent.body as { counterPartyAddress: string }).counterPartyAddress).toBe(expected);
  });
});

describe("the contract request sent to the connector", () => {
  const send = async (body: Record<string, unknown>) => {
    const ds = await dataspace();
    h.double.on("POST", `${MGMT}/pharmaco/contractnegotiations`, {
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
    return { res, sent: h.double.received("POST", `${MGMT}/pharmaco/contractnegotiations`) };
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
    h.double.on("POST", `${MGMT}/pharmaco/catalog/request`, { json: catalog });
    const res = await call(ds, "GET /api/negotiations", {
      query: { participantId: "pharmaco", catalog: "true", providerDid: ALPHA_DID },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(catalog);
    expect(h.double.requests[0].body).toMatchObject({
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
      expect(h.double.requests).toHaveLength(0);
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
      h.double.on("POST", `${MGMT}/pharmaco/transferprocesses`, {
        json: { "@type": "IdResponse", "@id": "tp-1" },
      });
      const res = await call(ds, "POST /api/transfers", {
        body: { participantId: "pharmaco", contractId, counterPartyAddress: "http://p/api/dsp/alpha/2025-1" },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ "@type": "IdResponse", "@id": "tp-1" });
      expect(h.double.received("POST", `${MGMT}/pharmaco/transferprocesses`)[0].body).toEqual({
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
