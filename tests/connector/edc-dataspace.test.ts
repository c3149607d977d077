import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { buildContractDefinition } from "../../server/dataspace/assets";
import type { PermitRegister } from "../../server/dataspace/permits";
import { PERMIT_ID } from "../support/permits";
import { createPolicyService } from "../../server/policies/service";
import { openDatabase, type Db } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import type { SessionUser } from "../../server/auth/user";
import { NO_CONTEXT } from "../../server/dataspace/acting";
import { callDataspace } from "../support/dataspace-call";
import { closedPortUrl } from "../support/upstream-double";
import { until } from "../support/until";

/*
 * The hub against two real EDC connectors (the connector pass, scripts/real-systems/connector-pass.mjs:
 * EDC 0.15.1, a provider and a consumer runtime, DSP 2025-1 between them). Each organisation runs its
 * own hub: two dataspace services, each configured with its own connector (CONNECTOR_MANAGEMENT_URL,
 * CONNECTOR_API_KEY), called through the route handlers of the hub's API with real Requests.
 */

const env = process.env;
const enabled = !!env.EDC_PROVIDER_MANAGEMENT_URL && !!env.EDC_CONSUMER_MANAGEMENT_URL;

const PROVIDER = env.EDC_PROVIDER_ID ?? "";
const CONSUMER = env.EDC_CONSUMER_ID ?? "";
/** the provider's DSP 2025-1 address (EDC 0.15: `<protocol>/2025-1`, one participant per runtime) */
const PROVIDER_DSP = `${env.EDC_PROVIDER_PROTOCOL_URL}/2025-1`;

const opened: { db: Db; ds: Dataspace }[] = [];

/** the access body as the hubs read it: one data permit for every dataset, revoked when a test says so */
let permitState = "ACTIVE";
const permits: PermitRegister = {
  validFor: async () => (permitState === "ACTIVE" ? { id: PERMIT_ID, pseudonymised: true } : undefined),
  stateOf: async (id) => (id === PERMIT_ID ? permitState : undefined),
  namedIn: async (id, datasets) => (id === PERMIT_ID ? [...datasets] : []),
};

async function hubFor(
  managementUrl: string,
  apiKey: string,
  participantId: string,
  bridge?: { publicUrl: string; source: (assetId: string) => Promise<unknown> },
) {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: bridge?.publicUrl ?? "http://127.0.0.1:3998",
    CONNECTOR_MANAGEMENT_URL: managementUrl,
    CONNECTOR_API_KEY: apiKey,
    CONNECTOR_PARTICIPANT_ID: participantId,
    UPSTREAM_TIMEOUT_MS: "15000",
  });
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  // a contract needs a data permit (issue 34): the stand-in access body holds one for every dataset
  const ds = await createDataspace(config, { db, audit, permits, bridgeSource: bridge?.source });
  opened.push({ db, ds });
  const policies = await createPolicyService({ rel, audit, dataspace: ds });
  return { ds, policies, audit };
}

/** a call of the management API of one connector, outside the hub (what the hub has no route for) */
async function management(base: string, key: string, method: string, path: string, body?: unknown) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", "x-api-key": key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The live records (no `_demo`), and no demonstration record: demonstration records belong to their
 * participant (issue 34), and the test's consumer owns none (the merge order of live and demonstration
 * records is asserted against the embedded dataspace, tests/api/dataspace-rules.test.ts).
 */
function expectLiveOnly(list: { _demo?: boolean }[]) {
  expect(list.length).toBeGreaterThan(0);
  expect(list.every((x) => x._demo === undefined)).toBe(true);
}

describe.skipIf(!enabled)("the hub against real EDC connectors (DSP 2025-1)", () => {
  let provider: Awaited<ReturnType<typeof hubFor>>;
  let consumer: Awaited<ReturnType<typeof hubFor>>;
  let down: Dataspace;
  const assetId = `asset-${Date.now()}`;
  const policyId = `policy-${Date.now()}`;
  let offerId = "";
  let negotiationId = "";
  let contractId = "";

  beforeAll(async () => {
    provider = await hubFor(env.EDC_PROVIDER_MANAGEMENT_URL!, env.EDC_PROVIDER_API_KEY!, PROVIDER);
    consumer = await hubFor(env.EDC_CONSUMER_MANAGEMENT_URL!, env.EDC_CONSUMER_API_KEY!, CONSUMER);
    down = (await hubFor(`${await closedPortUrl()}/management`, "none", CONSUMER)).ds;
  });
  afterAll(async () => {
    for (const o of opened) {
      await o.ds.close();
      o.db.close();
    }
  });

  it("the provider registers an asset and a policy through the hub, and the connector holds them", async () => {
    const created = await callDataspace(provider.ds, "POST /api/assets", {
      body: {
        participantId: PROVIDER,
        assetId,
        name: "Cohort extract",
        description: "a real asset at a real connector",
        dataAddress: { type: "HttpData", baseUrl: "http://127.0.0.1:9/data" },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body["@id"]).toBe(assetId);

    const listed = await callDataspace(provider.ds, "GET /api/assets", {
      query: { participantId: PROVIDER },
    });
    expect(listed.status).toBe(200);
    // the connector's records (the bundle has no demonstration assets for this participant)
    const ours = listed.body.findIndex((a: { "@id": string }) => a["@id"] === assetId);
    expect(listed.body[ours]).toMatchObject({ name: "Cohort extract" });
    expect(listed.body[ours]._demo).toBeUndefined();

    const policy = await provider.policies.create(
      PROVIDER,
      {
        "@id": policyId,
        "@type": "PolicyDefinition",
        policy: { "@type": "Set", permission: [{ action: "use" }] },
      },
      "admin",
    );
    expect(policy).toMatchObject({ "@id": policyId, connector: { state: "in-sync" } });
    const held = await management(
      env.EDC_PROVIDER_MANAGEMENT_URL!,
      env.EDC_PROVIDER_API_KEY!,
      "GET",
      `/v4beta/policydefinitions/${policyId}`,
    );
    expect(held.status).toBe(200);

    // registered before its policy existed: the offer is made at the connector (the hub offers an asset only as it
    // registers it, with a policyId: the bridged and held assets below, offer-from-the-hub.test.ts)
    const offered = await management(
      env.EDC_PROVIDER_MANAGEMENT_URL!,
      env.EDC_PROVIDER_API_KEY!,
      "POST",
      "/v4beta/contractdefinitions",
      buildContractDefinition(assetId, policyId),
    );
    expect(offered.status, JSON.stringify(offered.body)).toBe(200);
  });

  it("a runtime is one participant: only its own organisation acts in it; another organisation's member is refused and writes nothing; the lists show that one participant", async () => {
    // a member of the organisation the provider's runtime is (its DID is the runtime's participant id)
    const own: SessionUser = {
      sub: "provider-holder",
      username: "provider-holder",
      name: "Provider Holder",
      roles: ["DATA_HOLDER"],
      organisation: "Provider Hospital",
      participantDid: PROVIDER,
    };
    const foreignId = `foreign-${Date.now()}`;
    // AlphaKlinik's data holder names its own organisation's context at a hub whose connector is another
    // participant's runtime: before, the hub sent it to that runtime, as the runtime's participant
    const refused = await callDataspace(provider.ds, "POST /api/assets", {
      as: "clinic",
      body: {
        participantId: "alphaklinik-berlin",
        assetId: foreignId,
        name: "Not ours",
        dataAddress: { type: "HttpData", baseUrl: "http://127.0.0.1:9/x" },
      },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.error).toBe(NO_CONTEXT);
    const read = await callDataspace(provider.ds, "GET /api/negotiations", {
      as: "clinic",
      query: { participantId: "alphaklinik-berlin" },
    });
    expect(read.status).toBe(403);
    // an operator naming a context the runtime is not: nothing is written there either
    const elsewhere = await callDataspace(provider.ds, "POST /api/assets", {
      body: {
        participantId: "alphaklinik-berlin",
        assetId: foreignId,
        name: "Not ours",
        dataAddress: { type: "HttpData", baseUrl: "http://127.0.0.1:9/x" },
      },
    });
    expect([elsewhere.status, elsewhere.body]).toEqual([
      404,
      { error: "The participant context is not known to the connector" },
    ]);
    const held = await management(
      env.EDC_PROVIDER_MANAGEMENT_URL!,
      env.EDC_PROVIDER_API_KEY!,
      "GET",
      `/v4beta/assets/${foreignId}`,
    );
    expect(held.status).toBe(404);

    // the runtime's own organisation acts in it, as itself
    const me = await callDataspace(provider.ds, "GET /api/participants/me", { user: own });
    expect(me.body).toMatchObject({ id: PROVIDER, did: PROVIDER });
    const mine = await callDataspace(provider.ds, "GET /api/assets", {
      user: own,
      query: { participantId: PROVIDER },
    });
    expect(mine.status).toBe(200);
    expect(mine.body.map((a: { "@id": string }) => a["@id"])).toContain(assetId);
    // the participant list and the grouped asset list: the runtime's one participant
    const participants = await callDataspace(provider.ds, "GET /api/participants");
    expect(participants.status).toBe(200);
    expect(participants.body.map((p: { participantId: string }) => p.participantId)).toEqual([PROVIDER]);
    const grouped = await callDataspace(provider.ds, "GET /api/assets");
    expect(grouped.status).toBe(200);
    const group = grouped.body.find((g: { participantId: string }) => g.participantId === PROVIDER);
    expect(group.assets.map((a: { "@id": string }) => a["@id"])).toContain(assetId);
  });

  it("the provider's hub replaces and deletes a policy at the connector (PUT, DELETE): in sync, no hub-only copy", async () => {
    const id = `${policyId}-edited`;
    const created = await provider.policies.create(
      PROVIDER,
      // an Offer as written in the hub: the connector is sent a Set (EDC 0.15.1 refuses an Offer there)
      {
        "@id": id,
        "@type": "PolicyDefinition",
        policy: { "@type": "Offer", assigner: PROVIDER, permission: [{ action: "use" }] },
      },
      "admin",
    );
    expect(created).toMatchObject({ "@id": id, connector: { state: "in-sync" } });
    const replaced = await provider.policies.replace(
      id,
      PROVIDER,
      {
        "@id": id,
        "@type": "PolicyDefinition",
        policy: { "@type": "Set", permission: [{ action: "use" }], prohibition: [{ action: "use" }] },
      },
      "regulator",
    );
    expect(replaced).toMatchObject({ version: 2, connector: { state: "in-sync", detail: null } });
    const held = await management(
      env.EDC_PROVIDER_MANAGEMENT_URL!,
      env.EDC_PROVIDER_API_KEY!,
      "GET",
      `/v4beta/policydefinitions/${id}`,
    );
    expect(held.status).toBe(200);
    expect(JSON.stringify(held.body.policy)).toMatch(/prohibition/);
    await provider.policies.remove(id, PROVIDER, "admin");
    const gone = await management(
      env.EDC_PROVIDER_MANAGEMENT_URL!,
      env.EDC_PROVIDER_API_KEY!,
      "GET",
      `/v4beta/policydefinitions/${id}`,
    );
    expect(gone.status).toBe(404);
    // the offered policy is named by a contract definition: the connector keeps it, the hub says why
    await expect(provider.policies.remove(policyId, PROVIDER, "admin")).rejects.toMatchObject({
      status: 409,
    });
  });

  it("the consumer fetches the provider's catalogue over DSP 2025-1", async () => {
    const r = await callDataspace(consumer.ds, "GET /api/negotiations", {
      query: {
        participantId: CONSUMER,
        catalog: "true",
        providerDid: PROVIDER,
        counterPartyAddress: PROVIDER_DSP,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const summary = consumer.ds.summariseCatalog(r.body);
    expect(summary.providerDid).toBe(PROVIDER);
    expect(summary.endpointUrl).toBe(PROVIDER_DSP);
    const dataset = summary.datasets.find((d) => d.id === assetId);
    expect(dataset, JSON.stringify(r.body)).toBeDefined();
    offerId = dataset!.offers[0]!.id;
    expect(offerId).toMatch(/:/);
  });

  it("without the provider's address and without a directory entry for its DID the connector refuses the catalogue request: 502 with the spec's text", async () => {
    // this hub has no participant directory (the directory's address: negotiate-by-directory.test.ts)
    const r = await callDataspace(consumer.ds, "GET /api/negotiations", {
      query: { participantId: CONSUMER, catalog: "true", providerDid: PROVIDER },
    });
    expect(r.status).toBe(502);
    expect(r.body.error).toBe("Failed to fetch provider catalog");
    expect(r.body.detail).toMatch(/400/);
  });

  it("the consumer negotiates: the contract request carries the offered policy and reaches FINALIZED", async () => {
    const r = await callDataspace(consumer.ds, "POST /api/negotiations", {
      body: {
        participantId: CONSUMER,
        // a trailing slash is removed; an address ending in /2025-1 is used unchanged
        counterPartyAddress: `${PROVIDER_DSP}/`,
        counterPartyId: PROVIDER,
        providerDid: PROVIDER,
        assetId,
        offerId,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    negotiationId = r.body["@id"];
    const n = await until(
      async () =>
        (
          await callDataspace(consumer.ds, "GET /api/negotiations/:id", {
            params: { id: negotiationId },
            query: { participantId: CONSUMER },
          })
        ).body,
      (b) => b.state === "FINALIZED" || b.state === "TERMINATED",
    );
    expect(n.state, JSON.stringify(n)).toBe("FINALIZED");
    expect(n.protocol).toBe("dataspace-protocol-http:2025-1");
    expect(n.counterPartyAddress).toBe(PROVIDER_DSP);
    expect(n.contractId).toBe(n.contractAgreementId);
    contractId = n.contractId;

    // the agreement names the provider DID as assigner (the request's assigner = providerDid)
    const agreement = await management(
      env.EDC_CONSUMER_MANAGEMENT_URL!,
      env.EDC_CONSUMER_API_KEY!,
      "GET",
      `/v4beta/contractnegotiations/${negotiationId}/agreement`,
    );
    expect(agreement.status).toBe(200);
    expect(agreement.body.policy.assigner ?? agreement.body.policy["odrl:assigner"]).toBe(PROVIDER);
    expect(agreement.body.providerId).toBe(PROVIDER);
  });

  it("the consumer's negotiation list shows its live records, and no other participant's demonstration records", async () => {
    const r = await callDataspace(consumer.ds, "GET /api/negotiations", {
      query: { participantId: CONSUMER },
    });
    expect(r.status).toBe(200);
    const ours = r.body.findIndex((n: { "@id": string }) => n["@id"] === negotiationId);
    expect(ours).toBeGreaterThanOrEqual(0);
    expect(r.body[ours]._demo).toBeUndefined();
    expectLiveOnly(r.body);
  });

  it("the transfer request goes over DSP to the provider, and its data plane starts the pull", async () => {
    const r = await callDataspace(consumer.ds, "POST /api/transfers", {
      body: { participantId: CONSUMER, contractId, counterPartyAddress: PROVIDER_DSP, assetId },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const transferId = r.body["@id"];
    const t = await until(
      async () =>
        (
          await callDataspace(consumer.ds, "GET /api/transfers/:id", {
            params: { id: transferId },
            query: { participantId: CONSUMER },
          })
        ).body,
      (b) => ["STARTED", "COMPLETED", "TERMINATED"].includes(b.state),
    );
    expect(t).toMatchObject({ contractId, assetId, transferType: "HttpData-PULL" });
    // the provider holds its side of the same transfer (its correlation id is the consumer's id)
    const theirs = await management(
      env.EDC_PROVIDER_MANAGEMENT_URL!,
      env.EDC_PROVIDER_API_KEY!,
      "POST",
      "/v4beta/transferprocesses/request",
      { "@context": ["https://w3id.org/edc/connector/management/v2"], "@type": "QuerySpec" },
    );
    const provided = theirs.body.find((p: { correlationId: string }) => p.correlationId === transferId);
    expect(provided).toMatchObject({ type: "PROVIDER", assetId, transferType: "HttpData-PULL" });
    // the provider's data plane serves pulls (its public API, the connector pass's data-plane-public-api-v2):
    // the transfer starts, and the consumer's connector holds an endpoint data reference on the provider's
    // host (what the hub's pull GETs: the bridged asset's test below pulls through the hub)
    expect(t.state, String(t.errorDetail)).toBe("STARTED");
    const edr = await consumer.ds.runtime.connector.getEndpointDataReference(CONSUMER, transferId);
    expect(new URL(edr.endpoint).hostname).toBe(new URL(PROVIDER_DSP).hostname);
    expect(edr.endpoint).toMatch(/\/public$/);
    expect(edr.authorization.length).toBeGreaterThan(20);

    const list = await callDataspace(consumer.ds, "GET /api/transfers", {
      query: { participantId: CONSUMER },
    });
    const ours = list.body.findIndex((x: { "@id": string }) => x["@id"] === transferId);
    expect(ours).toBeGreaterThanOrEqual(0);
    expectLiveOnly(list.body);
  });

  it("with the connector down: the participant's demonstration records (none here), and the spec's 502 texts", async () => {
    const list = await callDataspace(down, "GET /api/negotiations", { query: { participantId: CONSUMER } });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);

    const catalog = await callDataspace(down, "GET /api/negotiations", {
      query: {
        participantId: CONSUMER,
        catalog: "true",
        providerDid: PROVIDER,
        counterPartyAddress: PROVIDER_DSP,
      },
    });
    expect(catalog.status).toBe(502);
    expect(catalog.body).toMatchObject({ error: "Failed to fetch provider catalog" });
    expect(typeof catalog.body.detail).toBe("string");

    const started = await callDataspace(down, "POST /api/negotiations", {
      body: {
        participantId: CONSUMER,
        counterPartyAddress: PROVIDER_DSP,
        providerDid: PROVIDER,
        assetId,
        offerId: offerId || "x",
      },
    });
    expect(started.status).toBe(502);
    expect(started.body).toMatchObject({ error: "Failed to initiate contract negotiation" });
    expect(typeof started.body.detail).toBe("string");

    // in its own runtime's context (another context is not sent: the test above)
    const asset = await callDataspace(down, "POST /api/assets", {
      body: { participantId: CONSUMER, assetId: "a-1", name: "n" },
    });
    expect(asset.status).toBe(502);
    expect(asset.body).toEqual({ error: "Failed to create asset" });
  });

  it("a push and a pull through the provider's EDC data plane read the hub's graph bridge with the address's code and deliver what the asset's terms allow (decisions 0065, 0109)", async () => {
    // the provider's hub served over HTTP at its public URL (the bridge as server/app.ts mounts it),
    // reading a synthetic population of 20 patients with type 2 diabetes
    let bridged: Awaited<ReturnType<typeof hubFor>> | undefined;
    const asked: { key: string | undefined }[] = [];
    const bridgeServer = createServer((req, res) => {
      asked.push({ key: req.headers["x-graph-bridge-key"] as string | undefined });
      void bridged!.ds
        .answerGraphBridge({ method: req.method ?? "", url: req.url ?? "/", headers: req.headers })
        .then(({ status, body }) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        });
    });
    await new Promise<void>((r) => bridgeServer.listen(0, "127.0.0.1", r));
    const received: string[] = [];
    const sink = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push(body);
        res.end();
      });
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    const at = (s: typeof sink) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    const population = {
      resourceType: "Bundle",
      type: "collection",
      entry: Array.from({ length: 20 }, (_, i) => [
        { resource: { resourceType: "Patient", id: `patient-${String(i).padStart(6, "0")}` } },
        { resource: { resourceType: "Condition", id: `condition-${i}`, code: "E11" } },
      ]).flat(),
    };
    try {
      bridged = await hubFor(env.EDC_PROVIDER_MANAGEMENT_URL!, env.EDC_PROVIDER_API_KEY!, PROVIDER, {
        publicUrl: at(bridgeServer),
        source: async () => population,
      });
      const bridgedAsset = `${assetId}-bridged`;
      const created = await callDataspace(bridged.ds, "POST /api/assets", {
        body: {
          participantId: PROVIDER,
          assetId: bridgedAsset,
          name: "Diabetes counts",
          datasets: ["dataset-bridged-diabetes"],
          disclosure: "aggregate",
          // offered through the hub under the provider's policy (decision 0108)
          policyId,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const catalog = await callDataspace(consumer.ds, "GET /api/negotiations", {
        query: {
          participantId: CONSUMER,
          catalog: "true",
          providerDid: PROVIDER,
          counterPartyAddress: PROVIDER_DSP,
        },
      });
      const offer = consumer.ds.summariseCatalog(catalog.body).datasets.find((d) => d.id === bridgedAsset)!
        .offers[0]!;
      const started = await callDataspace(consumer.ds, "POST /api/negotiations", {
        body: {
          participantId: CONSUMER,
          counterPartyAddress: PROVIDER_DSP,
          providerDid: PROVIDER,
          assetId: bridgedAsset,
          offerId: offer.id,
        },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const n = await until(
        async () =>
          (
            await callDataspace(consumer.ds, "GET /api/negotiations/:id", {
              params: { id: started.body["@id"] },
              query: { participantId: CONSUMER },
            })
          ).body,
        (b) => b.state === "FINALIZED" || b.state === "TERMINATED",
      );
      expect(n.state, JSON.stringify(n)).toBe("FINALIZED");
      // the consumer's hub read the asset's terms from the real connector's catalogue
      expect(await consumer.ds.runtime.contractPermits.of(CONSUMER, bridgedAsset)).toEqual([
        expect.objectContaining({ disclosure: "aggregate" }),
      ]);
      const push = await consumer.ds.runtime.connector.initiateTransfer(CONSUMER, {
        "@context": ["https://w3id.org/edc/connector/management/v2"],
        "@type": "TransferRequest",
        protocol: "dataspace-protocol-http:2025-1",
        counterPartyAddress: PROVIDER_DSP,
        contractId: n.contractAgreementId,
        transferType: "HttpData-PUSH",
        dataDestination: { "@type": "DataAddress", type: "HttpData", baseUrl: `${at(sink)}/in` },
      });
      const t = await until(
        () => consumer.ds.runtime.connector.getTransfer(CONSUMER, push["@id"]),
        (x) => x.state === "COMPLETED" || x.state === "TERMINATED",
      );
      expect(t.state, String(t.errorDetail)).toBe("COMPLETED");
      // EDC's data plane sent the address's code; the bridge answered the k-anonymous counts
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((a) => typeof a.key === "string" && a.key.length === 43)).toBe(true);
      expect(received.length).toBeGreaterThan(0);
      const delivered = JSON.parse(received[0]!);
      expect(delivered.resourceType).toBe("MeasureReport");
      expect(delivered.patients.count).toBe(20);
      expect(received[0]).not.toMatch(/patient-\d{6}/);
      const entries = await bridged.audit.list({ limit: 100 });
      expect(entries).toContainEqual(
        expect.objectContaining({
          action: "graph-bridge.read",
          target: `${PROVIDER}: ${bridgedAsset} (aggregate)`,
          outcome: "success",
        }),
      );

      // a pull through the consumer's hub: the transfer starts at both connectors, the hub reads the EDR and
      // GETs the provider's data plane with its token; EDC's data plane reads the bridge, and the hub hands on
      // what the permit and the asset's terms allow, on record first
      asked.length = 0;
      const pull = await callDataspace(consumer.ds, "POST /api/transfers", {
        body: {
          participantId: CONSUMER,
          contractId: n.contractAgreementId,
          counterPartyAddress: PROVIDER_DSP,
          assetId: bridgedAsset,
        },
      });
      expect(pull.status, JSON.stringify(pull.body)).toBe(201);
      const pulling = await until(
        () => consumer.ds.runtime.connector.getTransfer(CONSUMER, pull.body["@id"]),
        (x) => x.state === "STARTED" || x.state === "TERMINATED",
      );
      expect(pulling.state, String(pulling.errorDetail)).toBe("STARTED");
      const pulled = await consumer.ds.pullTransferData(CONSUMER, pull.body["@id"], "researcher");
      expect(new URL(pulled.endpoint).hostname).toBe("127.0.0.1");
      expect(pulled.permitId).toBe(PERMIT_ID);
      const data = pulled.data as { resourceType: string; patients: { count: number } };
      expect(data.resourceType).toBe("MeasureReport");
      expect(data.patients.count).toBe(20);
      expect(JSON.stringify(pulled.data)).not.toMatch(/patient-\d{6}/);
      // the provider's bridge answered EDC's data plane, under the asset's code
      expect(asked.length).toBeGreaterThan(0);
      expect(await consumer.audit.list({ limit: 100 })).toContainEqual(
        expect.objectContaining({
          action: "transfer.pull",
          actor: "researcher",
          target: `${CONSUMER}: ${pull.body["@id"]} (data permit ${PERMIT_ID}, aggregate)`,
          outcome: "success",
        }),
      );
    } finally {
      for (const s of [bridgeServer, sink]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    }
  });

  it("a revoked data permit cuts the agreement off at the connector: the open transfer is TERMINATED, no new transfer, no pull", async () => {
    // an asset whose source holds its answer: a push of it stays STARTED at both connectors
    const held: ServerResponse[] = [];
    const source = createServer((_req, res) => held.push(res));
    await new Promise<void>((r) => source.listen(0, "127.0.0.1", r));
    const sink = createServer((req, res) => req.resume().on("end", () => res.end()));
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    const at = (s: typeof source) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    try {
      const heldAsset = `${assetId}-held`;
      const created = await callDataspace(provider.ds, "POST /api/assets", {
        body: {
          participantId: PROVIDER,
          assetId: heldAsset,
          name: "Cohort extract, streamed",
          dataAddress: { type: "HttpData", baseUrl: `${at(source)}/data` },
          policyId,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const catalog = await callDataspace(consumer.ds, "GET /api/negotiations", {
        query: {
          participantId: CONSUMER,
          catalog: "true",
          providerDid: PROVIDER,
          counterPartyAddress: PROVIDER_DSP,
        },
      });
      const offer = consumer.ds.summariseCatalog(catalog.body).datasets.find((d) => d.id === heldAsset)!
        .offers[0]!;
      // the contract is negotiated through the hub, which records the permit it rests on
      const started = await callDataspace(consumer.ds, "POST /api/negotiations", {
        body: {
          participantId: CONSUMER,
          counterPartyAddress: PROVIDER_DSP,
          providerDid: PROVIDER,
          assetId: heldAsset,
          offerId: offer.id,
        },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const n = await until(
        async () =>
          (
            await callDataspace(consumer.ds, "GET /api/negotiations/:id", {
              params: { id: started.body["@id"] },
              query: { participantId: CONSUMER },
            })
          ).body,
        (b) => b.state === "FINALIZED" || b.state === "TERMINATED",
      );
      expect(n.state, JSON.stringify(n)).toBe("FINALIZED");
      // a push to an HttpData destination (the hub's TransferRequest cannot name one: asked at the connector)
      const push = await consumer.ds.runtime.connector.initiateTransfer(CONSUMER, {
        "@context": ["https://w3id.org/edc/connector/management/v2"],
        "@type": "TransferRequest",
        protocol: "dataspace-protocol-http:2025-1",
        counterPartyAddress: PROVIDER_DSP,
        contractId: n.contractAgreementId,
        transferType: "HttpData-PUSH",
        dataDestination: { "@type": "DataAddress", type: "HttpData", baseUrl: `${at(sink)}/in` },
      });
      const transferOf = async () => consumer.ds.runtime.connector.getTransfer(CONSUMER, push["@id"]);
      expect((await until(transferOf, (t) => t.state === "STARTED")).state).toBe("STARTED");

      permitState = "REVOKED";
      const reason = "Breach of the permit conditions";
      const outcome = await consumer.ds.cutOffPermit(PERMIT_ID, reason, "regulator");
      expect(outcome.failed).toEqual([]);
      expect(outcome.terminated).toContainEqual({ participantId: CONSUMER, transferId: push["@id"] });
      const ended = await until(transferOf, (t) => t.state === "TERMINATED");
      expect(ended).toMatchObject({ state: "TERMINATED", errorDetail: reason });
      // the provider's side of it ends too (told over DSP): TERMINATED, then DEPROVISIONED
      const theirs = await until(
        async () =>
          (
            await management(
              env.EDC_PROVIDER_MANAGEMENT_URL!,
              env.EDC_PROVIDER_API_KEY!,
              "POST",
              "/v4beta/transferprocesses/request",
              { "@context": ["https://w3id.org/edc/connector/management/v2"], "@type": "QuerySpec" },
            )
          ).body.find((p: { correlationId: string }) => p.correlationId === push["@id"]),
        (p) => ["TERMINATED", "DEPROVISIONED"].includes(p?.state),
      );
      expect(["TERMINATED", "DEPROVISIONED"]).toContain(theirs?.state);

      // no new transfer under the agreement, and no pull of the ended one
      const again = await callDataspace(consumer.ds, "POST /api/transfers", {
        body: {
          participantId: CONSUMER,
          contractId: n.contractAgreementId,
          counterPartyAddress: PROVIDER_DSP,
          assetId: heldAsset,
        },
      });
      expect(again.status).toBe(403);
      expect(again.body.error).toBe(`Data permit ${PERMIT_ID} is REVOKED: no further data leaves under it`);
      await expect(consumer.ds.pullTransferData(CONSUMER, push["@id"])).rejects.toMatchObject({
        status: 403,
      });
      expect(await consumer.ds.runtime.cutOffs.get(PERMIT_ID)).toMatchObject({
        lastError: null,
        attempts: 1,
      });
    } finally {
      permitState = "ACTIVE";
      for (const r of held) r.destroy();
      for (const s of [source, sink]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    }
  });
});
