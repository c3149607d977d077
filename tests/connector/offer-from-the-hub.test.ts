import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { buildContractDefinition } from "../../server/dataspace/assets";
import { decodeOfferId } from "../../server/local-dataspace/catalog";
import { createPolicyService } from "../../server/policies/service";
import { openDatabase, type Db } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { callDataspace } from "../support/dataspace-call";
import { standInPermits } from "../support/permits";

/*
 * A provider offers an asset through its hub alone (decision 0108), against two real EDC 0.15.1
 * runtimes (the connector pass, scripts/real-systems/connector-pass.mjs): the policy written with the
 * hub's policy service (as POST /api/admin/policies does), the asset registered with POST /api/assets
 * and that policy's id; the consumer's hub then finds the asset in the provider's catalogue under an
 * offer of that policy. No call to the provider's management API outside the hub, but to look.
 */

const env = process.env;
const enabled = !!env.EDC_PROVIDER_MANAGEMENT_URL && !!env.EDC_CONSUMER_MANAGEMENT_URL;
const PROVIDER = env.EDC_PROVIDER_ID ?? "";
const CONSUMER = env.EDC_CONSUMER_ID ?? "";
const PROVIDER_DSP = `${env.EDC_PROVIDER_PROTOCOL_URL}/2025-1`;

const opened: { db: Db; ds: Dataspace }[] = [];

async function hubFor(managementUrl: string, apiKey: string, participantId: string) {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3998",
    CONNECTOR_MANAGEMENT_URL: managementUrl,
    CONNECTOR_API_KEY: apiKey,
    CONNECTOR_PARTICIPANT_ID: participantId,
    UPSTREAM_TIMEOUT_MS: "15000",
  });
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const ds = await createDataspace(config, { db, audit, permits: standInPermits });
  opened.push({ db, ds });
  return { ds, policies: await createPolicyService({ rel, audit, dataspace: ds }) };
}

/** a look at the provider's connector, outside the hub */
async function atProvider(method: string, path: string, body?: unknown) {
  const r = await fetch(`${env.EDC_PROVIDER_MANAGEMENT_URL}${path}`, {
    method,
    headers: { "content-type": "application/json", "x-api-key": env.EDC_PROVIDER_API_KEY! },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

describe.skipIf(!enabled)("a provider offers an asset through its hub (real EDC connectors)", () => {
  let provider: Awaited<ReturnType<typeof hubFor>>;
  let consumer: Awaited<ReturnType<typeof hubFor>>;
  const stamp = Date.now().toString(36);
  const policyId = `hub-offer-policy-${stamp}`;
  const asset = (assetId: string, extra: Record<string, unknown> = {}) => ({
    participantId: PROVIDER,
    assetId,
    name: "Offered through the hub",
    dataAddress: { type: "HttpData", baseUrl: "http://127.0.0.1:9/data" },
    ...extra,
  });
  /** the offers of the hub's definition of `assetId` in the provider's catalogue, as the consumer's hub finds it */
  const hubOffersInCatalogue = async (assetId: string) => {
    const r = await callDataspace(consumer.ds, "GET /api/negotiations", {
      query: {
        participantId: CONSUMER,
        catalog: "true",
        providerDid: PROVIDER,
        counterPartyAddress: PROVIDER_DSP,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const dataset = consumer.ds.summariseCatalog(r.body).datasets.find((d) => d.id === assetId);
    return dataset?.offers.filter((o) => decodeOfferId(o.id)?.definitionId === `${assetId}-offer`) ?? [];
  };
  const assetIds = async () =>
    (await callDataspace(provider.ds, "GET /api/assets", { query: { participantId: PROVIDER } })).body.map(
      (a: { "@id": string }) => a["@id"],
    );

  beforeAll(async () => {
    provider = await hubFor(env.EDC_PROVIDER_MANAGEMENT_URL!, env.EDC_PROVIDER_API_KEY!, PROVIDER);
    consumer = await hubFor(env.EDC_CONSUMER_MANAGEMENT_URL!, env.EDC_CONSUMER_API_KEY!, CONSUMER);
    const policy = await provider.policies.create(
      PROVIDER,
      {
        "@id": policyId,
        "@type": "PolicyDefinition",
        policy: { "@type": "Set", permission: [{ action: "use" }], prohibition: [{ action: "use" }] },
      },
      "admin",
    );
    expect(policy).toMatchObject({ connector: { state: "in-sync" } });
  });
  afterAll(async () => {
    for (const o of opened) {
      await o.ds.close();
      o.db.close();
    }
  });

  it("the provider registers an asset with its policy: the consumer's hub finds it in the provider's catalogue under that policy's offer", async () => {
    const assetId = `hub-offered-${stamp}`;
    const created = await callDataspace(provider.ds, "POST /api/assets", {
      body: asset(assetId, { policyId }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body["@id"]).toBe(assetId);
    const definition = await atProvider("GET", `/v4beta/contractdefinitions/${assetId}-offer`);
    expect(definition.body).toMatchObject({ accessPolicyId: policyId, contractPolicyId: policyId });

    const offers = await hubOffersInCatalogue(assetId);
    expect(offers).toHaveLength(1);
    // the offer carries the policy's rules: its prohibition is this policy's alone
    expect(JSON.stringify(offers[0].policy)).toMatch(/prohibition/);
  });

  it("a policyId the provider does not hold: 400 naming it, and no asset at the connector", async () => {
    const assetId = `hub-not-offered-${stamp}`;
    const res = await callDataspace(provider.ds, "POST /api/assets", {
      body: asset(assetId, { policyId: `no-such-${stamp}` }),
    });
    expect([res.status, res.body]).toEqual([
      400,
      {
        error: `policyId must be a policy definition that ${PROVIDER} holds at its connector: no-such-${stamp} is not`,
      },
    ]);
    expect((await atProvider("GET", `/v4beta/assets/${assetId}`)).status).toBe(404);
    expect(await assetIds()).not.toContain(assetId);
  });

  it("a contract definition the connector refuses (its id taken): the asset is removed again, 502 saying so", async () => {
    const assetId = `hub-half-${stamp}`;
    const taken = await atProvider("POST", "/v4beta/contractdefinitions", {
      ...buildContractDefinition(`someone-elses-${stamp}`, policyId),
      "@id": `${assetId}-offer`,
    });
    expect(taken.status).toBe(200);
    const res = await callDataspace(provider.ds, "POST /api/assets", { body: asset(assetId, { policyId }) });
    expect([res.status, res.body.error]).toEqual([502, "Failed to create asset"]);
    expect(res.body.detail).toMatch(/409.*the asset was removed again$/);
    expect((await atProvider("GET", `/v4beta/assets/${assetId}`)).status).toBe(404);
    // the definition that was there is not the hub's: kept
    expect((await atProvider("GET", `/v4beta/contractdefinitions/${assetId}-offer`)).status).toBe(200);
  });

  it("an asset registered only is offered through the hub afterwards (the share page's offer): listed as the hub's offer, in the consumer's catalogue; withdrawn, in neither", async () => {
    const assetId = `hub-later-${stamp}`;
    expect((await callDataspace(provider.ds, "POST /api/assets", { body: asset(assetId) })).status).toBe(201);
    expect((await provider.ds.offersOf(PROVIDER, [assetId]))[assetId]).toEqual([]);
    expect(await hubOffersInCatalogue(assetId)).toEqual([]);

    await provider.ds.offerAsset(PROVIDER, assetId, policyId, "admin");
    expect((await provider.ds.offersOf(PROVIDER, [assetId]))[assetId]).toEqual([
      { definitionId: `${assetId}-offer`, policyId, byHub: true },
    ]);
    expect(await hubOffersInCatalogue(assetId)).toHaveLength(1);
    // offered already: 409, the offer as it was
    await expect(provider.ds.offerAsset(PROVIDER, assetId, policyId, "admin")).rejects.toMatchObject({
      status: 409,
    });

    await provider.ds.withdrawOffer(PROVIDER, assetId, "admin");
    expect((await provider.ds.offersOf(PROVIDER, [assetId]))[assetId]).toEqual([]);
    expect(await hubOffersInCatalogue(assetId)).toEqual([]);
    await expect(provider.ds.withdrawOffer(PROVIDER, assetId, "admin")).rejects.toMatchObject({
      status: 404,
    });
  });
});
