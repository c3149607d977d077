import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import type { OidcClient } from "../../server/auth/oidc-client";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { createSqliteGraphStore } from "../../server/graph/sqlite-store";
import { createOperatorService } from "../../server/operator/service";
import { createPolicyService } from "../../server/policies/service";
import { openDatabase, type Db } from "../../server/storage/database";
import { closedPortUrl, startUpstreamDouble, type UpstreamDouble } from "../support/upstream-double";

/**
 * Policies and the operator console against a configured (non-embedded) connector, played by the
 * upstream double: the exact EDC management API calls for create, replace and delete of a policy
 * definition, the answers to the connector's failures, and a component restart that rebuilds a
 * client.
 */

const MGMT = "/mgmt/v3/participants";
let double: UpstreamDouble;
const opened: { ds: Dataspace; db: Db }[] = [];

beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(async () => {
  for (const o of opened) {
    await o.ds.close();
    o.db.close();
  }
  await double.close();
});
beforeEach(() => double.reset());

async function setup(managementUrl = `${double.url}/mgmt`) {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3998",
    CONNECTOR_MANAGEMENT_URL: managementUrl,
    CONNECTOR_API_VERSION: "v3",
    UPSTREAM_TIMEOUT_MS: "1000",
  });
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const ds = await createDataspace(config, { db, audit });
  opened.push({ ds, db });
  const policies = await createPolicyService({ rel, audit, dataspace: ds });
  // the context a policy is written in, whose DID its assigner must be
  double.on("GET", `${MGMT}/lmc`, { json: { "@id": "lmc", identity: "did:web:lmc.nl:participant" } });
  return { config, db, rel, audit, ds, policies };
}

const offer = (id: string) => ({
  "@id": id,
  "@type": "PolicyDefinition",
  policy: {
    "@type": "Offer",
    assigner: "did:web:lmc.nl:participant",
    permission: [{ action: "use" }],
    prohibition: [],
    obligation: [],
  },
});

describe("policies at a configured connector", () => {
  it("creates, replaces and deletes policy definitions with the EDC management API", async () => {
    const { policies, audit } = await setup();
    double.on("POST", `${MGMT}/lmc/policydefinitions`, { json: { "@id": "offer-a", createdAt: 1 } });
    const created = await policies.create("lmc", offer("offer-a"), "admin");
    expect(created).toMatchObject({ "@id": "offer-a", version: 1, connector: { state: "in-sync" } });
    const [post] = double.received("POST", `${MGMT}/lmc/policydefinitions`);
    expect(post!.body).toMatchObject({
      "@context": ["https://w3id.org/edc/connector/management/v2"],
      "@id": "offer-a",
      "@type": "PolicyDefinition",
      policy: {
        "@context": "http://www.w3.org/ns/odrl.jsonld",
        // a policy definition's policy is a Set at the connector (EDC refuses an Offer there)
        "@type": "Set",
        assigner: "did:web:lmc.nl:participant",
        permission: [{ action: "use" }],
      },
    });
    // and carries no empty rule lists
    expect(Object.keys((post!.body as { policy: object }).policy)).not.toContain("prohibition");
    expect(Object.keys((post!.body as { policy: object }).policy)).not.toContain("obligation");

    const definitions = {
      json: [{ "@id": "offer-a", policy: { "@type": "Offer", permission: [{ action: "use" }] } }],
    };
    double.on("POST", `${MGMT}/lmc/policydefinitions/request`, definitions);
    double.on("PUT", `${MGMT}/lmc/policydefinitions/offer-a`, { status: 204, json: null });
    const replaced = await policies.replace(
      "offer-a",
      "lmc",
      { ...offer("offer-a"), policy: { ...offer("offer-a").policy, permission: [{ action: "read" }] } },
      "regulator",
    );
    expect(replaced).toMatchObject({ version: 2, connector: { state: "in-sync", detail: null } });
    const [put] = double.received("PUT", `${MGMT}/lmc/policydefinitions/offer-a`);
    expect(put!.body).toMatchObject({ "@id": "offer-a", policy: { permission: [{ action: "read" }] } });

    double.on("DELETE", `${MGMT}/lmc/policydefinitions/offer-a`, { status: 204, json: null });
    await policies.remove("offer-a", "lmc", "admin");
    expect(double.received("DELETE", `${MGMT}/lmc/policydefinitions/offer-a`)).toHaveLength(1);
    expect((await audit.list({ kind: "policy" })).map((e) => e.action)).toEqual([
      "policy.delete",
      "policy.update",
      "policy.create",
    ]);
  });

  it("answers the connector's failures with clear errors", async () => {
    const { policies } = await setup();
    double.on("POST", `${MGMT}/lmc/policydefinitions`, { status: 500, message: "boom" });
    await expect(policies.create("lmc", offer("offer-b"), "admin")).rejects.toMatchObject({
      status: 502,
      message: "Failed to push the policy to the connector",
      detail: expect.stringMatching(/HTTP 500/),
    });
    double.on("POST", `${MGMT}/lmc/policydefinitions`, { status: 409, message: "exists" });
    // a connector that says it holds offer-b lists it when the hub reads its definitions back (push-outcome.ts)
    double.on("POST", `${MGMT}/lmc/policydefinitions/request`, {
      json: [{ "@id": "offer-b", policy: { "@type": "Set", permission: [{ action: "read" }] } }],
    });
    await expect(policies.create("lmc", offer("offer-b"), "admin")).rejects.toMatchObject({ status: 409 });
    double.on("POST", `${MGMT}/nobody/policydefinitions`, { status: 404, message: "no context" });
    await expect(policies.create("nobody", offer("offer-b"), "admin")).rejects.toMatchObject({
      status: 404,
      message: "Participant context nobody not found",
    });

    double.on("POST", `${MGMT}/lmc/policydefinitions/request`, {
      json: [{ "@id": "used", policy: { "@type": "Set", permission: [{ action: "use" }] } }],
    });
    double.on("DELETE", `${MGMT}/lmc/policydefinitions/used`, { status: 409, message: "referenced" });
    await expect(policies.remove("used", "lmc", "admin")).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/a contract definition still uses it/),
    });
    double.on("POST", `${MGMT}/lmc/policydefinitions/request`, { status: 503, message: "down" });
    await expect(policies.list("lmc")).rejects.toMatchObject({
      status: 502,
      message: "Failed to fetch policy definitions",
    });
  });
});

describe("operator console with a configured connector", () => {
  it("diagnoses an unreachable connector and rebuilds its client on restart", async () => {
    const { config, db, rel, audit, ds } = await setup(await closedPortUrl());
    const oidc = { issuer: "http://127.0.0.1:1/idp", probe: async () => false } as unknown as OidcClient;
    const graph = createSqliteGraphStore(db, audit);
    const operator = await createOperatorService({
      db,
      rel,
      audit,
      config,
      graph,
      dataspace: ds,
      oidc,
      makeOidc: () => oidc,
      embeddedIdp: false,
    });
    const d = await operator.diagnosis("connector");
    expect(d.component).toMatchObject({
      name: "connector",
      health: "down",
      embedded: false,
      version: "management API v3",
    });
    expect(d.lastError?.message).toMatch(/connector/);
    expect(d.remedy.join(" ")).toMatch(/CONNECTOR_MANAGEMENT_URL/);
    const before = ds.runtime.connector;
    const r = await operator.restart("connector", { oidc }, "admin");
    expect(r).toMatchObject({
      restarted: true,
      alsoRestarted: [],
      action: expect.stringMatching(/client re-initialised/),
    });
    expect(ds.runtime.connector).not.toBe(before);
    await expect(operator.restart("tenant-manager", { oidc }, "admin")).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/no tenant manager is configured/),
    });
    const idp = await operator.diagnosis("identity-provider");
    expect(idp.remedy.join(" ")).toMatch(/OIDC_ISSUER/);
    await operator.close();
  });
});
