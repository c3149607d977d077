import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import type { PermitRegister } from "../../server/dataspace/permits";
import type { LocalDataspace } from "../../server/local-dataspace";
import { startTestDataspace } from "../support/local-dataspace";
import { openDatabase, type Db } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { callDataspace } from "../support/dataspace-call";
import { dataspaceEnvVia, startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { until } from "../support/until";

/*
 * Issue 37: a revoked data permit cuts its agreements off at the connector. The hub (its dataspace
 * service, configured as for a remote connector) in front of the embedded development dataspace,
 * reached through a fault proxy: after the revocation every open transfer of the agreement is
 * TERMINATED at the connector with the reason, no new transfer or pull is let through, and a
 * termination the connector fails stays pending, is retried, and is on the audit log.
 * The same against the real EDC connector: tests/connector/edc-dataspace.test.ts.
 */

const PERMIT = "MEDREG-DP-CUT-0001";
const CONSUMER = "pharmaco";
const PROVIDER = "alphaklinik-berlin";
const ASSET = "fhir-cohort-bundle";

/** the access body as the hub reads it: one permit, revoked when the test says so */
let permitState = "ACTIVE";
const register: PermitRegister = {
  validFor: async () => (permitState === "ACTIVE" ? { id: PERMIT, pseudonymised: true } : undefined),
  stateOf: async (id) => (id === PERMIT ? permitState : undefined),
  namedIn: async (id, datasets) => (id === PERMIT ? [...datasets] : []),
};

let local: LocalDataspace;
let proxy: FaultProxy;
let db: Db;
let ds: Dataspace;
let audit: Awaited<ReturnType<typeof createAuditLog>>;

const transferState = async (id: string) =>
  (await callDataspace(ds, "GET /api/transfers/:id", { params: { id }, query: { participantId: CONSUMER } }))
    .body;

/** negotiates through the hub (the permit is recorded for it), then starts `n` pull transfers */
async function agreementWithTransfers(n: number) {
  const providerDid = "did:web:alpha-klinik.de:participant";
  const catalog = await callDataspace(ds, "GET /api/negotiations", {
    query: {
      participantId: CONSUMER,
      catalog: "true",
      providerDid,
      counterPartyAddress: `${local.protocolBaseUrl}/${PROVIDER}/2025-1`,
    },
  });
  expect(catalog.status, JSON.stringify(catalog.body)).toBe(200);
  const summary = ds.summariseCatalog(catalog.body);
  const offerId = summary.datasets.find((d) => d.id === ASSET)!.offers[0]!.id;
  const started = await callDataspace(ds, "POST /api/negotiations", {
    body: {
      participantId: CONSUMER,
      counterPartyAddress: summary.endpointUrl,
      providerDid,
      assetId: ASSET,
      offerId,
    },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const n1 = await until(
    async () =>
      (
        await callDataspace(ds, "GET /api/negotiations/:id", {
          params: { id: started.body["@id"] },
          query: { participantId: CONSUMER },
        })
      ).body,
    (b) => b.state === "FINALIZED" || b.state === "TERMINATED",
  );
  expect(n1.state).toBe("FINALIZED");
  const transfer = () =>
    callDataspace(ds, "POST /api/transfers", {
      body: {
        participantId: CONSUMER,
        contractId: n1.contractAgreementId,
        counterPartyAddress: summary.endpointUrl,
        assetId: ASSET,
      },
    });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = await transfer();
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    ids.push(t.body["@id"]);
  }
  for (const id of ids)
    expect(
      (
        await until(
          () => transferState(id),
          (b) => b.state === "STARTED",
        )
      ).state,
    ).toBe("STARTED");
  return { contractId: n1.contractAgreementId as string, address: summary.endpointUrl, ids, transfer };
}

beforeAll(async () => {
  local = await startTestDataspace({
    dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
  });
  proxy = await startFaultProxy({ routes: { "": local.url }, slowMs: 10_000 });
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3997",
    UPSTREAM_TIMEOUT_MS: "5000",
    ...dataspaceEnvVia(proxy, local),
  });
  db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  audit = await createAuditLog(rel, db);
  ds = await createDataspace(config, { db, audit, permits: register });
});
afterAll(async () => {
  await ds?.close();
  await proxy?.close();
  await local?.close();
  db?.close();
});

describe("a revoked data permit cuts its agreements off at the connector", () => {
  it("terminates every open transfer of the agreement with the reason; no new transfer, no pull", async () => {
    permitState = "ACTIVE";
    const { ids, transfer } = await agreementWithTransfers(2);
    // before: the pull goes through
    const pulled = await ds.pullTransferData(CONSUMER, ids[0]!);
    expect(pulled.permitId).toBe(PERMIT);

    permitState = "REVOKED";
    const reason = "Breach of the permit conditions";
    const outcome = await ds.cutOffPermit(PERMIT, reason, "regulator");
    expect(outcome.failed).toEqual([]);
    // a pull leaves its transfer open (as EDC keeps it STARTED): the pulled one ends too
    expect(outcome.terminated.map((t) => t.transferId).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      expect(await transferState(id)).toMatchObject({ state: "TERMINATED", errorDetail: reason });
      // the connector answers no EDR for it any more
      await expect(ds.runtime.connector.getEndpointDataReference(CONSUMER, id)).rejects.toMatchObject({
        status: 404,
      });
    }
    const again = await transfer();
    expect(again.status).toBe(403);
    expect(again.body.error).toBe(`Data permit ${PERMIT} is REVOKED: no further data leaves under it`);
    await expect(ds.pullTransferData(CONSUMER, ids[0]!)).rejects.toMatchObject({ status: 403 });
    expect(await ds.runtime.cutOffs.get(PERMIT)).toMatchObject({ attempts: 1, lastError: null });
    expect(typeof (await ds.runtime.cutOffs.get(PERMIT))!.doneAt).toBe("number");
  });

  it("a termination the connector fails stays pending, is retried after a backoff, and is on the audit log", async () => {
    permitState = "ACTIVE";
    const permit2 = PERMIT; // the register names one permit; a second agreement under it
    const { ids } = await agreementWithTransfers(1);
    permitState = "REVOKED";
    // the cut-off of the first test is done: a new revocation of the same permit is recorded afresh
    await db.prepare("DELETE FROM dataspace_permit_cutoffs").run();
    await proxy.setMode("500", (method, path) => method === "POST" && path.includes("/terminate"));
    // the proxy drops its connections on a change of mode: one read to take a fresh one
    await ds.runtime.connector.listTransfers(CONSUMER).catch(() => {});
    const failed = await ds.cutOffPermit(permit2, "revoked again", "regulator");
    expect(failed.terminated).toEqual([]);
    expect(failed.failed).toEqual([
      expect.objectContaining({
        participantId: CONSUMER,
        transferId: ids[0],
        error: expect.stringMatching(/500/),
      }),
    ]);
    const pending = await ds.runtime.cutOffs.get(permit2);
    expect(pending).toMatchObject({ attempts: 1, doneAt: null, lastError: expect.stringMatching(/500/) });
    expect(pending!.nextAttemptAt).toBeGreaterThan(Date.now());
    expect((await transferState(ids[0]!)).state).toBe("STARTED");
    // not due yet: the retry leaves it
    expect(await ds.retryCutOffs()).toEqual([]);

    await proxy.setMode("ok");
    await db.prepare("UPDATE dataspace_permit_cutoffs SET next_attempt_at = 0").run();
    const retried = await ds.retryCutOffs();
    expect(retried).toEqual([
      expect.objectContaining({
        permitId: permit2,
        failed: [],
        terminated: [{ participantId: CONSUMER, transferId: ids[0] }],
      }),
    ]);
    expect(await transferState(ids[0]!)).toMatchObject({ state: "TERMINATED", errorDetail: "revoked again" });
    expect(await ds.runtime.cutOffs.get(permit2)).toMatchObject({ attempts: 2, lastError: null });

    const entries = (await audit.list({ limit: 50 })).filter(
      (e: { action: string }) => e.action === "transfer.terminate",
    );
    const forIt = entries.filter((e: { target: string }) => e.target.includes(ids[0]!));
    expect(forIt.map((e: { outcome: string }) => e.outcome).sort()).toEqual(["failure", "success"]);
  });
});
