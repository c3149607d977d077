import { mkdtempSync, rmSync } from "node:fs";
import { standInPermits } from "../support/permits";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callDataspace, type DataspaceCall } from "../support/dataspace-call";
import { loadConfig } from "../../server/config";
import {
  createDataspace,
  reconnectClients,
  type Dataspace,
  type DataspaceDeps,
} from "../../server/dataspace";
import { bundledDemoRecords } from "../../server/dataspace/demo-records";
import { startDataspace } from "../../server/start-dataspace";
import { openDatabase, type Db } from "../../server/storage/database";
import { startUpstreamDouble, type UpstreamDouble } from "../support/upstream-double";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type JsonBody = any;
/**
 * The upstream read cache (server/dataspace/read-cache.ts): identical reads in flight share one
 * upstream call, a kept answer is reused, a write through this server drops every kept answer at
 * once (a write then a read returns the write), failures are never kept, and with the embedded
 * dataspace a change made by the dataspace itself (a provisioning step) is seen at once.
 */

// well above the double's delays (100–150 ms) even on a loaded machine, well below its 2.5 s "slow"
const TIMEOUT_MS = 1500;
const MGMT = "/mgmt/v4alpha/participants";
const demo = bundledDemoRecords();

let double: UpstreamDouble;
const opened: { ds: Dataspace; db: Db; dir?: string }[] = [];

async function remote(deps: Partial<DataspaceDeps> = {}): Promise<Dataspace> {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    CONNECTOR_MANAGEMENT_URL: `${double.url}/mgmt`,
    CONNECTOR_API_VERSION: "v4alpha",
    TENANT_MANAGER_URL: `${double.url}/tm`,
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  const db = openDatabase(":memory:");
  const ds = await createDataspace(config, { db, permits: standInPermits, ...deps });
  opened.push({ ds, db });
  return ds;
}

const call = (ds: Dataspace, key: string, opts: DataspaceCall = {}) => callDataspace(ds, key, opts);

const contexts = [{ "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" }];

beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(async () => {
  for (const { ds, db, dir } of opened) {
    await ds.close();
    db.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  await double?.close();
});
beforeEach(() => double.reset());

describe("with a kept answer (readCacheMs)", () => {
  it("identical reads in flight share one upstream call", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    double.on("GET", MGMT, { json: contexts, delayMs: 150 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(ds, "GET /api/participants")));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(answers[0].body[0].displayName).toBe("AlphaKlinik Berlin");
    expect(double.received("GET", MGMT)).toHaveLength(1);
    expect(ds.readCache.stats.coalesced).toBeGreaterThanOrEqual(9);
  });

  it("keeps reading through the cache after a restart rebuilds the clients, and forgets what it kept before", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    double.on("GET", MGMT, { json: contexts });
    await call(ds, "GET /api/participants");
    await call(ds, "GET /api/participants");
    expect(double.received("GET", MGMT)).toHaveLength(1);
    reconnectClients(ds.runtime, ["connector"], {
      managementUrl: `${double.url}/mgmt`,
      apiVersion: "v4alpha",
    });
    await call(ds, "GET /api/participants"); // the restarted connector's answer, not the one kept before
    expect(double.received("GET", MGMT)).toHaveLength(2);
    await call(ds, "GET /api/participants");
    expect(double.received("GET", MGMT)).toHaveLength(2);
  });

  it("reuses a kept answer, and a write through this server drops it at once: the read returns the write", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    const assets: JsonBody[] = [{ "@id": "a-1", properties: { name: "First" } }];
    double
      .on("POST", `${MGMT}/alpha/assets/request`, { reply: () => ({ json: assets }) })
      .on("POST", `${MGMT}/alpha/assets`, {
        reply: (req) => {
          assets.push(req.body);
          return { json: { "@type": "IdResponse", "@id": (req.body as JsonBody)["@id"] } };
        },
      });
    const ids = async () =>
      (await call(ds, "GET /api/assets", { query: { participantId: "alpha" } })).body.map(
        (a: JsonBody) => a["@id"],
      );
    expect(await ids()).toEqual(["a-1"]);
    expect(await ids()).toEqual(["a-1"]);
    expect(double.received("POST", `${MGMT}/alpha/assets/request`)).toHaveLength(1); // the second was kept

    const created = await call(ds, "POST /api/assets", {
      as: "admin",
      body: { participantId: "alpha", assetId: "a-2", name: "Second" },
    });
    expect(created.status).toBe(201);
    expect(await ids()).toEqual(["a-1", "a-2"]);
    expect(double.received("POST", `${MGMT}/alpha/assets/request`)).toHaveLength(2);
  });

  it("a failed write invalidates too, and a failure is never kept", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    let fail = true;
    double.on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, {
      reply: () =>
        fail
          ? { status: 500, json: [{ message: "down" }] }
          : { json: [{ "@id": "n-live", state: "REQUESTED" }] },
    });
    const first = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(first.body).toEqual(demo.sharedOf("pharmaco").negotiations); // the fallback
    fail = false;
    const second = await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(second.body[0]["@id"]).toBe("n-live"); // the failure was not kept
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(double.received("POST", `${MGMT}/pharmaco/contractnegotiations/request`)).toHaveLength(2);

    double.on("POST", `${MGMT}/pharmaco/contractnegotiations`, { status: 500 });
    const start = await call(ds, "POST /api/negotiations", {
      body: { participantId: "pharmaco", counterPartyAddress: "http://p", assetId: "a", offerId: "o" },
    });
    expect(start.status).toBe(502);
    await call(ds, "GET /api/negotiations", { query: { participantId: "pharmaco" } });
    expect(double.received("POST", `${MGMT}/pharmaco/contractnegotiations/request`)).toHaveLength(3);
  });

  it("a caller that joins a slow call still answers within its own time-out", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    double.on("POST", `${MGMT}/pharmaco/transferprocesses/request`, { slowMs: 2500, json: [] });
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 3 }, () =>
        call(ds, "GET /api/transfers", { query: { participantId: "pharmaco" } }),
      ),
    );
    expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS + 1000);
    for (const a of answers) expect(a.body).toEqual(demo.sharedOf("pharmaco").transfers);
    expect(double.received("POST", `${MGMT}/pharmaco/transferprocesses/request`)).toHaveLength(1);
  });
});

describe("with a configured connector and no readCacheMs", () => {
  it("reads one after another go upstream each time; reads in flight together share one call", async () => {
    const ds = await remote();
    double.on("GET", MGMT, { json: contexts, delayMs: 100 });
    await call(ds, "GET /api/participants");
    await call(ds, "GET /api/participants");
    expect(double.received("GET", MGMT)).toHaveLength(2);
    await Promise.all(Array.from({ length: 5 }, () => call(ds, "GET /api/participants")));
    expect(double.received("GET", MGMT)).toHaveLength(3);
  });

  it("asks a provider's catalogue anew every time (another participant's answer), sharing only calls in flight", async () => {
    const ds = await remote();
    const CATALOG = `${MGMT}/alpha/catalog/request`;
    double.on("POST", CATALOG, { json: { "@id": "catalog-1", "@type": "dcat:Catalog" }, delayMs: 100 });
    const ask = () =>
      call(ds, "GET /api/negotiations", {
        as: "admin",
        query: { participantId: "alpha", catalog: "true", providerDid: "did:web:provider.example" },
      });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    expect(double.received("POST", CATALOG)).toHaveLength(2);
    const together = await Promise.all(Array.from({ length: 5 }, ask));
    expect(together.map((r) => r.body["@id"])).toEqual(Array(5).fill("catalog-1"));
    expect(double.received("POST", CATALOG)).toHaveLength(3);
  });
});

describe("with the embedded dataspace", () => {
  let ds: Dataspace;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dataspace-cache-"));
    const config = loadConfig({
      NODE_ENV: "test",
      DATA_DIR: dir,
      UPSTREAM_TIMEOUT_MS: "3000",
      PUBLIC_URL: "http://127.0.0.1:3999",
    });
    const db = openDatabase(":memory:");
    ds = await startDataspace(config, { db, local: { stepMs: 40 } });
    ds.usePermits(standInPermits);
    opened.push({ ds, db, dir });
  });

  it("reuses answers while nothing changes, and sees a change made by the dataspace itself at once", async () => {
    const ids = async () =>
      (await call(ds, "GET /api/participants")).body.map((p: JsonBody) => p.participantId as string);
    const before = await ids();
    const hits = ds.readCache.stats.hits;
    expect(await ids()).toEqual(before);
    expect(ds.readCache.stats.hits).toBeGreaterThan(hits);

    const created = await call(ds, "POST /api/participants", {
      body: { displayName: "Cache Klinik", role: "DATA_HOLDER" },
    });
    expect(created.status).toBe(201);
    const id = created.body.participantId as string;
    // provisioning activates the context a few steps later, inside the embedded dataspace: no write
    // through this server announces it, the dataspace's change counter does
    const started = Date.now();
    let listed = await ids();
    while (!listed.includes(id) && Date.now() - started < 3000) {
      await new Promise((r) => setTimeout(r, 20));
      listed = await ids();
    }
    expect(listed).toContain(id);
    expect(Date.now() - started).toBeLessThan(3000); // far below the kept answers' 10 s
  });

  it("keeps a provider's catalogue until the dataspace changes (it follows every change), then asks anew", async () => {
    const catalogue = () =>
      call(ds, "GET /api/negotiations", {
        as: "admin", // the researcher's own-context check reads the (kept) participant list: not this test's
        query: {
          participantId: "pharmaco",
          catalog: "true",
          providerDid: "did:web:alpha-klinik.de:participant",
        },
      });
    const offerIds = (body: JsonBody) =>
      ds
        .summariseCatalog(body)
        .datasets.flatMap((d: { offers: { id: string }[] }) => d.offers.map((o) => o.id));
    // a first call, then five at once, in a quiet moment: the embedded dataspace may still be taking the
    // previous test's provisioning steps, each a change that rightly drops the kept answers (measured again then)
    const stats = ds.readCache.stats;
    let quiet: { hits: number; misses: number } | undefined;
    let first: Awaited<ReturnType<typeof catalogue>> | undefined;
    let together: Awaited<ReturnType<typeof catalogue>>[] = [];
    for (let attempt = 0; attempt < 50 && !quiet; attempt++) {
      const { invalidations } = stats;
      first = await catalogue();
      const kept = { ...stats };
      together = await Promise.all(Array.from({ length: 5 }, catalogue));
      if (stats.invalidations === invalidations) quiet = kept;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(quiet, "the dataspace never stood still for six calls").toBeDefined();
    expect(first!.status).toBe(200);
    expect(offerIds(first!.body).length).toBeGreaterThan(0);
    expect(together.map((r) => JSON.stringify(r.body))).toEqual(Array(5).fill(JSON.stringify(first!.body)));
    // each call reads the catalogue and the context list its provider's DSP address is found in, both kept:
    // no upstream call
    expect(stats.misses).toBe(quiet!.misses);
    expect(stats.hits).toBe(quiet!.hits + 10);
    // a write through this server (a new asset of the provider): the next catalogue is the provider's anew
    const asset = await call(ds, "POST /api/assets", {
      as: "admin",
      body: {
        participantId: "alphaklinik-berlin",
        assetId: `cache-probe-${Date.now().toString(36)}`,
        name: "Cache probe",
      },
    });
    expect(asset.status).toBe(201);
    const after = await catalogue();
    expect(after.status).toBe(200);
    expect(offerIds(after.body)).not.toEqual(offerIds(first!.body));
  });
});
