import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { loadConfig } from "../config";
import { MANAGEMENT_CONTEXT } from "../dataspace-protocol";
import type { LocalDataspace } from "../local-dataspace";
import { startTestDataspace } from "../../tests/support/local-dataspace";
import { openDatabase } from "../storage/database";
import { offeredRules } from "./catalog";
import { createConnectorClient } from "./connector-client";
import { createDataspace } from "./index";
import { buildContractRequest } from "./negotiations";
import { MANAGEMENT_TOKEN_SCOPE } from "./oauth-token";

/** the older context (EDC's v3 API), which the participant-scoped API refuses */
const LEGACY_MANAGEMENT_CONTEXT = "https://w3id.org/edc/connector/management/v0.0.1";

/*
 * What the hub puts on the wire for a real connector (issue 37): the management/v2 context, the path
 * shape per API version, the key, the token's scopes, the EDR path and the offered rules.
 */

let double: UpstreamDouble;
beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(() => double.close());
beforeEach(() => double.reset());

describe("the connector client's paths and headers", () => {
  it("v4beta (EDC 0.15): runtime-scoped paths, the key in x-api-key, the EDR at /v3/edrs", async () => {
    double
      .on("POST", "/m/v4beta/assets/request", { json: [] })
      .on("GET", "/m/v3/edrs/t-1/dataaddress", { json: { endpoint: "http://dp/x", authorization: "tok" } });
    const client = createConnectorClient({
      managementUrl: `${double.url}/m`,
      apiVersion: "v4beta",
      timeoutMs: 2000,
      apiKey: "k-1",
      participantId: "did:web:anyone",
    });
    await client.listAssets("did:web:anyone");
    const [req] = double.received("POST", "/m/v4beta/assets/request");
    expect(req!.headers["x-api-key"]).toBe("k-1");
    expect(req!.body).toMatchObject({ "@context": [MANAGEMENT_CONTEXT], "@type": "QuerySpec" });
    await client.getEndpointDataReference("did:web:anyone", "t-1");
    expect(double.received("GET", "/m/v3/edrs/t-1/dataaddress")).toHaveLength(1);
  });

  it("v4beta: the runtime is one participant: its context is listed, a call in any other is answered 404 and not sent (issue 34)", async () => {
    double.on("POST", "/m/v4beta/assets", { json: { "@type": "IdResponse", "@id": "a-1" } });
    const client = createConnectorClient({
      managementUrl: `${double.url}/m`,
      apiVersion: "v4beta",
      timeoutMs: 2000,
      apiKey: "k-1",
      participantId: "did:web:runtime",
    });
    expect(await client.listParticipantContexts()).toEqual([
      { "@id": "did:web:runtime", identity: "did:web:runtime", state: "ACTIVATED" },
    ]);
    expect((await client.getParticipantContext("did:web:runtime"))["@id"]).toBe("did:web:runtime");
    const asset = { "@id": "a-1", properties: {} };
    for (const call of [
      () => client.createAsset("alphaklinik-berlin", asset),
      () => client.listNegotiations("alphaklinik-berlin"),
      () => client.deleteAsset("alphaklinik-berlin", "a-1"),
      () => client.getEndpointDataReference("alphaklinik-berlin", "t-1"),
      () => client.getParticipantContext("alphaklinik-berlin"),
    ]) {
      await expect(call()).rejects.toMatchObject({ upstream: "connector", failure: "status", status: 404 });
    }
    expect(double.requests).toHaveLength(0);
    await client.createAsset("did:web:runtime", asset);
    expect(double.received("POST", "/m/v4beta/assets")).toHaveLength(1);
    expect(() =>
      createConnectorClient({ managementUrl: `${double.url}/m`, apiVersion: "v4beta", timeoutMs: 2000 }),
    ).toThrow(/participant id is required/);
  });

  it("other versions: participant-scoped paths, no key header", async () => {
    double.on("POST", "/m/v5alpha/participants/ctx-1/assets/request", { json: [] });
    const client = createConnectorClient({
      managementUrl: `${double.url}/m`,
      apiVersion: "v5alpha",
      timeoutMs: 2000,
    });
    await client.listAssets("ctx-1");
    const [req] = double.received("POST", "/m/v5alpha/participants/ctx-1/assets/request");
    expect(req!.headers["x-api-key"]).toBeUndefined();
  });

  it("CONNECTOR_API_VERSION defaults to v4beta, and the management token asks for the connector's scopes", async () => {
    double
      .on("POST", "/token", { json: { access_token: "t", expires_in: 300 } })
      .on("POST", "/m/v4beta/contractnegotiations/request", { json: [] });
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: ":memory:",
      PUBLIC_URL: "http://127.0.0.1:3998",
      CONNECTOR_MANAGEMENT_URL: `${double.url}/m`,
      CONNECTOR_TOKEN_URL: `${double.url}/token`,
      CONNECTOR_CLIENT_ID: "hub",
      CONNECTOR_CLIENT_SECRET: "s",
      CONNECTOR_PARTICIPANT_ID: "did:web:c",
      DEMO_RECORDS: "off",
    });
    expect(config.connector?.apiVersion).toBe("v4beta");
    const db = openDatabase(":memory:");
    try {
      const ds = await createDataspace(config, { db });
      await ds.listNegotiations("did:web:c");
      const [token] = double.received("POST", "/token");
      expect(new URLSearchParams(token!.rawBody).get("scope")).toBe(MANAGEMENT_TOKEN_SCOPE);
      expect(MANAGEMENT_TOKEN_SCOPE.split(" ")).toEqual(
        expect.arrayContaining(["management-api:read", "management-api:write"]),
      );
    } finally {
      db.close();
    }
  });
});

describe("the contract request carries the offered rules", () => {
  const catalog = {
    dataset: [
      {
        "@id": "asset-1",
        hasPolicy: [
          {
            "@id": "ZGVm:YXNzZXQ=:b2xk",
            "@type": "Offer",
            permission: [
              { action: "use", constraint: [{ leftOperand: "purpose", operator: "eq", rightOperand: "x" }] },
            ],
            prohibition: [],
          },
        ],
      },
    ],
  };

  it("reads the offer by id, else by its definition and asset, and leaves empty lists out", () => {
    const rules = { permission: catalog.dataset[0]!.hasPolicy[0]!.permission };
    expect(offeredRules(catalog, "asset-1", "ZGVm:YXNzZXQ=:b2xk")).toEqual(rules);
    expect(offeredRules(catalog, "asset-1", "ZGVm:YXNzZXQ=:bmV3")).toEqual(rules);
    expect(offeredRules(catalog, "asset-1", "b3RoZXI=:YXNzZXQ=:b2xk")).toBeUndefined();
    expect(offeredRules(catalog, "asset-2", "ZGVm:YXNzZXQ=:b2xk")).toBeUndefined();
  });

  it("puts them in the Offer; without them the spec's single `use` permission", () => {
    const req = {
      participantId: "c",
      counterPartyAddress: "http://p/protocol/2025-1",
      assetId: "asset-1",
      offerId: "ZGVm:YXNzZXQ=:b2xk",
      providerDid: "did:web:p",
    };
    const offered = offeredRules(catalog, "asset-1", req.offerId)!;
    expect(buildContractRequest(req, offered)).toMatchObject({
      "@context": [MANAGEMENT_CONTEXT],
      policy: { "@type": "Offer", assigner: "did:web:p", target: "asset-1", permission: offered.permission },
    });
    const plain = buildContractRequest(req).policy as Record<string, unknown>;
    expect(plain.permission).toEqual([{ action: "use" }]);
    expect(plain).not.toHaveProperty("prohibition");
  });
});

describe("the embedded dataspace refuses what the participant-scoped API refuses", () => {
  let local: LocalDataspace;
  beforeAll(async () => {
    local = await startTestDataspace();
  });
  afterAll(() => local.close());

  it("a body in the old management/v0.0.1 context: 400, nothing created", async () => {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: local.clientId,
      client_secret: local.clientSecret,
    });
    const { access_token } = (await (await fetch(local.tokenUrl, { method: "POST", body: form })).json()) as {
      access_token: string;
    };
    const headers = { authorization: `Bearer ${access_token}`, "content-type": "application/json" };
    const base = `${local.managementUrl}/${local.apiVersion}/participants/lmc/assets`;
    const asset = (context: string) =>
      JSON.stringify({
        "@context": [context],
        "@type": "Asset",
        "@id": "legacy-1",
        properties: {},
        dataAddress: {},
      });
    const refused = await fetch(base, { method: "POST", headers, body: asset(LEGACY_MANAGEMENT_CONTEXT) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual([
      expect.objectContaining({
        type: "ValidationFailure",
        message: expect.stringContaining(MANAGEMENT_CONTEXT),
      }),
    ]);
    expect((await fetch(`${base}/legacy-1`, { headers })).status).toBe(404);
    const query = await fetch(`${base}/request`, {
      method: "POST",
      headers,
      body: JSON.stringify({ "@context": [LEGACY_MANAGEMENT_CONTEXT], "@type": "QuerySpec" }),
    });
    expect(query.status).toBe(400);
  });
});
