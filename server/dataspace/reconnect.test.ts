import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { loadConfig } from "../config";
import { openDatabase } from "../storage/database";
import { createDataspace, reconnectClients, serviceEndpoints } from ".";

/**
 * A restart's clients (reconnectClients) are built by the rule the start-up's are (createDataspace):
 * the same token requests and the same calls, whatever client credentials are given.
 */
let double: UpstreamDouble;
beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(() => double.close());

const answers = () =>
  double
    .on("POST", "/token", { json: { access_token: "tok", expires_in: 300 } })
    .on("GET", "/mgmt/v4alpha/participants", { json: [] })
    .on("GET", "/tm/api/v1alpha1/tenants", { json: [] });

describe("the clients of a restart", () => {
  it.each([
    ["with a client id", { clientId: "hub", clientSecret: "s" }],
    ["without a client id (the token endpoint decides)", {}],
  ])("ask the token endpoint as the start-up's did, %s", async (_, credentials) => {
    const endpoints = {
      managementUrl: `${double.url}/mgmt`,
      apiVersion: "v4alpha",
      tenantManagerUrl: `${double.url}/tm`,
      tokenUrl: `${double.url}/token`,
      clientId: undefined,
      clientSecret: undefined,
      apiKey: undefined,
      participantId: undefined,
      ...credentials,
    };
    const config = loadConfig({ NODE_ENV: "test", DATA_DIR: ":memory:", UPSTREAM_TIMEOUT_MS: "2000" });
    const db = openDatabase(":memory:");
    const ds = await createDataspace(
      { ...config, connector: endpoints, tenantManagerUrl: endpoints.tenantManagerUrl },
      { db },
    );
    const calls = async () => {
      double.reset();
      answers();
      await ds.runtime.connector.listParticipantContexts();
      await ds.runtime.tenantManager!.listTenants();
      return double.requests.map((r) => [r.method, r.path, r.headers.authorization, r.rawBody]);
    };
    try {
      const atStart = await calls();
      expect(atStart[0]).toEqual(["POST", "/token", undefined, expect.stringContaining("client_id=")]);
      reconnectClients(ds.runtime, ["connector", "tenant-manager"], endpoints);
      expect(await calls()).toEqual(atStart);
    } finally {
      await ds.close();
      db.close();
    }
  });
});

describe("the issuer's and the identity hub's API keys (decision 0114)", () => {
  it("go as x-api-key in place of the management token, each to its service, at start-up and after a restart", async () => {
    const env = {
      NODE_ENV: "test",
      DATA_DIR: ":memory:",
      UPSTREAM_TIMEOUT_MS: "2000",
      CONNECTOR_MANAGEMENT_URL: `${double.url}/mgmt`,
      CONNECTOR_API_VERSION: "v4alpha",
      CONNECTOR_TOKEN_URL: `${double.url}/token`,
      CONNECTOR_CLIENT_ID: "hub",
      CONNECTOR_CLIENT_SECRET: "s",
      // the connector's key goes beside its token, as it always did
      CONNECTOR_API_KEY: "connector-key",
      ISSUER_URL: `${double.url}/issuer`,
      ISSUER_API_KEY: "aXNzdWVy.aXNzdWVyLWtleQ==",
      IDENTITY_HUB_URL: `${double.url}/identity`,
      IDENTITY_HUB_API_KEY: "c3VwZXItdXNlcg==.aHViLWtleQ==",
    };
    const config = loadConfig(env);
    const db = openDatabase(":memory:");
    const ds = await createDataspace(config, { db });
    const calls = async () => {
      double.reset();
      answers()
        .on("POST", "/issuer/v1alpha/participants/aXNzdWVy/credentialdefinitions/query", { json: [] })
        .on("GET", "/identity/v1alpha/participants/bG1j/credentials", { json: [] });
      await ds.runtime.connector.listParticipantContexts();
      await ds.runtime.issuer!.listCredentialDefinitions();
      await ds.runtime.identityHub!.listCredentials("lmc");
      return double.requests
        .filter((r) => r.path !== "/token")
        .map((r) => [r.path.split("/")[1], r.headers["x-api-key"], r.headers.authorization]);
    };
    try {
      const atStart = await calls();
      expect(atStart).toEqual([
        ["mgmt", "connector-key", "Bearer tok"],
        ["issuer", env.ISSUER_API_KEY, undefined],
        ["identity", env.IDENTITY_HUB_API_KEY, undefined],
      ]);
      // as the operator console's restart of a configured service rebuilds them (component-restart.ts: serviceEndpoints)
      reconnectClients(ds.runtime, ["issuer", "identity-hub"], serviceEndpoints(config)!);
      expect(await calls()).toEqual(atStart);
    } finally {
      await ds.close();
      db.close();
    }
  });
});

describe("a configured issuer's participant context and DID (ISSUER_CONTEXT_ID, ISSUER_DID)", () => {
  const env = {
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    UPSTREAM_TIMEOUT_MS: "2000",
    CONNECTOR_MANAGEMENT_URL: "http://127.0.0.1:1/mgmt",
    CONNECTOR_API_VERSION: "v4alpha",
    ISSUER_URL: "http://127.0.0.1:1/issuer",
    ISSUER_API_KEY: "aXNzdWVy.aXNzdWVyLWtleQ==",
    IDENTITY_HUB_URL: "http://127.0.0.1:1/identity",
    IDENTITY_HUB_API_KEY: "c3VwZXItdXNlcg==.aHViLWtleQ==",
  };
  const definitions = [{ id: "membership", credentialType: "MembershipCredential", format: "VC1_0_JWT" }];

  it("name the issuer's paths and the DID a holder asks by DCP, at start-up and after a restart", async () => {
    const urls = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, v.replace("http://127.0.0.1:1", double.url)]),
    );
    const config = loadConfig({
      ...urls,
      ISSUER_CONTEXT_ID: "ehds-issuer",
      ISSUER_DID: "did:web:issuer.example",
    });
    const db = openDatabase(":memory:");
    const ds = await createDataspace(config, { db });
    const request = async () => {
      double.reset();
      double
        .on("POST", "/issuer/v1alpha/participants/ZWhkcy1pc3N1ZXI/credentialdefinitions/query", {
          json: definitions,
        })
        .on("POST", "/identity/v1alpha/participants/bG1j/credentials/request", { status: 201, json: {} });
      await ds.requestCredential("lmc", "MembershipCredential");
      return double.requests.map((r) => [
        r.method,
        r.path,
        (r.body as { issuerDid?: string } | undefined)?.issuerDid,
      ]);
    };
    try {
      const atStart = await request();
      expect(atStart).toEqual([
        ["POST", "/issuer/v1alpha/participants/ZWhkcy1pc3N1ZXI/credentialdefinitions/query", undefined],
        ["POST", "/identity/v1alpha/participants/bG1j/credentials/request", "did:web:issuer.example"],
      ]);
      reconnectClients(ds.runtime, ["issuer", "identity-hub"], serviceEndpoints(config)!);
      expect(await request()).toEqual(atStart);
    } finally {
      await ds.close();
      db.close();
    }
  });

  it("without the DID, a credential request is refused with 503 before any call", async () => {
    const config = loadConfig(env);
    const db = openDatabase(":memory:");
    const ds = await createDataspace(config, { db });
    try {
      double.reset();
      await expect(ds.requestCredential("lmc", "MembershipCredential")).rejects.toMatchObject({
        status: 503,
        message:
          "Credential issuance needs an identity hub and an issuer with its DID (IDENTITY_HUB_URL, ISSUER_URL, ISSUER_DID)",
      });
      expect(double.requests).toEqual([]);
    } finally {
      await ds.close();
      db.close();
    }
  });

  it("are refused at boot without ISSUER_URL", () => {
    expect(() => loadConfig({ ISSUER_DID: "did:web:issuer.example", ISSUER_CONTEXT_ID: "x" })).toThrow(
      /ISSUER_DID: set without ISSUER_URL .*\n {2}- ISSUER_CONTEXT_ID: set without ISSUER_URL/,
    );
    expect(() => loadConfig({ ...env, ISSUER_DID: "issuer.example" })).toThrow(
      "ISSUER_DID: not a DID (did:<method>:<id>)",
    );
  });
});
