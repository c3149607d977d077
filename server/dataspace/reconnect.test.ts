import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { loadConfig } from "../config";
import { openDatabase } from "../storage/database";
import { createDataspace, reconnectClients } from ".";

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
