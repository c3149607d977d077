import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import type { PermitRegister } from "../../server/dataspace/permits";
import { startLocalDataspace, type LocalDataspace } from "../../server/local-dataspace";
import { openDatabase, type Db } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { callDataspace } from "../support/dataspace-call";

/*
 * Decision 0065: a negotiation still running when its data permit is revoked is terminated at the
 * connector (`POST …/contractnegotiations/{id}/terminate` with the revocation's reason), so that no
 * agreement comes of it; the termination is on the audit log. The embedded dataspace's negotiations
 * step once a minute here, so the negotiation is still REQUESTED at the revocation.
 */

const PERMIT = "MEDREG-DP-NEG-0001";
const CONSUMER = "pharmaco";
const PROVIDER = "alphaklinik-berlin";
const PROVIDER_DID = "did:web:alpha-klinik.de:participant";
const ASSET = "fhir-cohort-bundle";

let permitState = "ACTIVE";
const register: PermitRegister = {
  validFor: async () => (permitState === "ACTIVE" ? { id: PERMIT, pseudonymised: true } : undefined),
  stateOf: async (id) => (id === PERMIT ? permitState : undefined),
  namedIn: async (id, datasets) => (id === PERMIT ? [...datasets] : []),
};

let local: LocalDataspace;
let db: Db;
let ds: Dataspace;
let audit: Awaited<ReturnType<typeof createAuditLog>>;

beforeAll(async () => {
  local = await startLocalDataspace({
    dataDir: ":memory:",
    stepMs: 60_000,
    dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
    onError: () => {},
  });
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3996",
    UPSTREAM_TIMEOUT_MS: "5000",
  });
  db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  audit = await createAuditLog(rel, db);
  ds = await createDataspace(config, { db, audit, permits: register, embedded: local });
});
afterAll(async () => {
  await ds?.close();
  await local?.close();
  db?.close();
});

const negotiation = async (id: string) =>
  (
    await callDataspace(ds, "GET /api/negotiations/:id", {
      params: { id },
      query: { participantId: CONSUMER },
    })
  ).body;

describe("a revoked data permit ends its negotiations still running", () => {
  it("terminates a negotiation still REQUESTED at the revocation, with the reason, on both sides; audited; a second cut-off finds nothing left", async () => {
    const catalog = await callDataspace(ds, "GET /api/negotiations", {
      query: {
        participantId: CONSUMER,
        catalog: "true",
        providerDid: PROVIDER_DID,
        counterPartyAddress: `${local.protocolBaseUrl}/${PROVIDER}/2025-1`,
      },
    });
    expect(catalog.status, JSON.stringify(catalog.body)).toBe(200);
    const summary = ds.summariseCatalog(catalog.body);
    const started = await callDataspace(ds, "POST /api/negotiations", {
      body: {
        participantId: CONSUMER,
        counterPartyAddress: summary.endpointUrl,
        providerDid: PROVIDER_DID,
        assetId: ASSET,
        offerId: summary.datasets.find((d) => d.id === ASSET)!.offers[0]!.id,
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const id = started.body["@id"] as string;
    expect((await negotiation(id)).state).toBe("REQUESTED");

    permitState = "REVOKED";
    const reason = "Permit revoked: the purpose was exceeded";
    const outcome = await ds.cutOffPermit(PERMIT, reason, "regulator");
    expect(outcome.failed).toEqual([]);
    expect(outcome.terminatedNegotiations).toEqual([{ participantId: CONSUMER, negotiationId: id }]);
    expect(await negotiation(id)).toMatchObject({ state: "TERMINATED", errorDetail: reason });
    // the provider's side of it ended too
    const consumerSide = await ds.runtime.connector.getNegotiation(CONSUMER, id);
    const mirror = String(consumerSide.correlationId);
    expect((await ds.runtime.connector.getNegotiation(PROVIDER, mirror)).state).toBe("TERMINATED");
    const entries = await audit.list({ limit: 1000 });
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: "negotiation.terminate",
        actor: "regulator",
        target: `${CONSUMER}: ${id} (data permit ${PERMIT})`,
        outcome: "success",
      }),
    );
    // ended: the connector answers 409 to another termination, and a second cut-off has nothing to do
    await expect(ds.runtime.connector.terminateNegotiation(CONSUMER, id, reason)).rejects.toMatchObject({
      status: 409,
    });
    await expect(
      ds.runtime.connector.terminateNegotiation(CONSUMER, "no-such-negotiation", reason),
    ).rejects.toMatchObject({
      status: 404,
    });
    await db.prepare("DELETE FROM dataspace_permit_cutoffs").run();
    const again = await ds.cutOffPermit(PERMIT, reason, "regulator");
    expect(again).toMatchObject({ terminatedNegotiations: [], terminated: [], failed: [] });
  });
});
