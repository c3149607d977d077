import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { standInPermits } from "../support/permits";
import { callDataspace, type DataspaceCall } from "../support/dataspace-call";
import { loadConfig } from "../../server/config";
import { createDataspace, type Dataspace } from "../../server/dataspace";
import { bundledDemoRecords } from "../../server/dataspace/demo-records";
import { openDatabase, type Db } from "../../server/storage/database";
import {
  closedPortUrl,
  startUpstreamDouble,
  type Behaviour,
  type UpstreamDouble,
} from "../support/upstream-double";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
type JsonBody = any;
/**
 * Upstream failures, on purpose: the connector and tenant manager down (connection refused),
 * answering 500, answering after the time-out, answering malformed JSON, answering empty lists.
 * Lists fall back to the demonstration records within the time-out plus one second; creates
 * answer the spec's 502 texts (with `detail` on the negotiation routes); DEMO_RECORDS=off turns
 * the fallback off.
 */

const TIMEOUT_MS = 300;
const BUDGET_MS = TIMEOUT_MS + 1000;
const MGMT = "/mgmt/v4alpha/participants";
const TM = "/tm/api/v1alpha1";
const demo = bundledDemoRecords();

let double: UpstreamDouble;
let down: string;
const opened: { ds: Dataspace; db: Db }[] = [];
const timings: { scenario: string; route: string; ms: number; status: number }[] = [];

async function dataspace(base: string, env: Record<string, string> = {}): Promise<Dataspace> {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    CONNECTOR_MANAGEMENT_URL: `${base}/mgmt`,
    CONNECTOR_API_VERSION: "v4alpha",
    TENANT_MANAGER_URL: `${base}/tm`,
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    ...env,
  });
  const db = openDatabase(":memory:");
  const ds = await createDataspace(config, { db, permits: standInPermits });
  opened.push({ ds, db });
  return ds;
}

async function call(ds: Dataspace, scenario: string, key: string, opts: DataspaceCall = {}) {
  const started = performance.now();
  const res = await callDataspace(ds, key, opts);
  const ms = Math.round(performance.now() - started);
  timings.push({ scenario, route: `${key}${res.url.search}`, ms, status: res.status });
  return { status: res.status, body: res.body, ms };
}

beforeAll(async () => {
  double = await startUpstreamDouble();
  down = await closedPortUrl();
});
afterAll(async () => {
  for (const { ds, db } of opened) {
    await ds.close();
    db.close();
  }
  await double?.close();
  const rows = timings
    .filter((t) => t.scenario !== "-")
    .map(
      (t) =>
        `${t.scenario.padEnd(22)} ${String(t.status).padEnd(4)} ${String(t.ms).padStart(5)} ms  ${t.route}`,
    );
  console.log(`upstream time-out ${TIMEOUT_MS} ms; answers measured:\n${rows.join("\n")}`);
});
beforeEach(() => double.reset());

const failing = (b: Behaviour) => () => {
  for (const m of ["GET", "POST", "PUT", "PATCH"]) double.on(m, /.*/, b);
};

const scenarios: { name: string; base: () => string; arrange: () => void; detail: RegExp }[] = [
  {
    name: "connection refused",
    base: () => down,
    arrange: () => {},
    detail: /^connector is unreachable \(ECONNREFUSED\)$/,
  },
  {
    name: "HTTP 500",
    base: () => double.url,
    arrange: failing({ status: 500 }),
    detail: /^connector answered HTTP 500: failing on purpose with 500$/,
  },
  {
    name: "slower than the time-out",
    base: () => double.url,
    arrange: failing({ slowMs: 2500, json: [] }),
    detail: /^connector did not answer within the time-out$/,
  },
  {
    name: "malformed JSON",
    base: () => double.url,
    arrange: failing({ malformed: true }),
    detail: /^connector answered with malformed JSON$/,
  },
];

describe.each(scenarios)("upstream $name", ({ name, base, arrange, detail }) => {
  let ds: Dataspace;
  beforeEach(async () => {
    arrange();
    ds ??= await dataspace(base());
  });

  it("lists fall back to the demonstration records, 200, within the time-out plus one second", async () => {
    const checks: [string, Record<string, string>, unknown][] = [
      ["GET /api/negotiations", { participantId: "pharmaco" }, demo.sharedOf("pharmaco").negotiations],
      ["GET /api/transfers", { participantId: "pharmaco" }, demo.sharedOf("pharmaco").transfers],
      ["GET /api/assets", {}, demo.assetGroups()],
      ["GET /api/assets", { participantId: "lmc" }, demo.assetGroups()[1].assets],
      ["GET /api/participants", {}, demo.participants()],
    ];
    for (const [key, query, expected] of checks) {
      const res = await call(ds, name, key, { query });
      expect(res.status, key).toBe(200);
      expect(res.body, key).toEqual(expected);
      expect(res.ms, key).toBeLessThan(BUDGET_MS);
    }
    const tasks = await call(ds, name, "GET /api/tasks", { as: "researcher" });
    expect(tasks.status).toBe(200);
    expect(tasks.ms).toBeLessThan(BUDGET_MS);
    expect(tasks.body.map((t: JsonBody) => t.id).sort()).toEqual(
      [
        "negotiation-demo-pharmaco-alpha-001",
        "negotiation-demo-pharmaco-lmc-002",
        "transfer-demo-pharmaco-alpha-001",
        "transfer-demo-pharmaco-lmc-002",
      ].sort(),
    );
    const one = await call(ds, name, "GET /api/negotiations/:id", {
      params: { id: "negotiation-demo-irs-alpha-003" },
      query: { participantId: "irs" },
    });
    expect(one.status).toBe(200);
    expect(one.body["@id"]).toBe("negotiation-demo-irs-alpha-003");
  });

  it("creates answer the spec's 502 texts within the time-out plus one second", async () => {
    const negotiation = await call(ds, name, "POST /api/negotiations", {
      body: {
        participantId: "pharmaco",
        counterPartyAddress: "http://p/api/dsp",
        counterPartyId: "alpha",
        offerId: "o",
        assetId: "a",
      },
    });
    expect(negotiation.status).toBe(502);
    expect(negotiation.body.error).toBe("Failed to initiate contract negotiation");
    expect(negotiation.body.detail).toMatch(detail);

    const catalog = await call(ds, name, "GET /api/negotiations", {
      query: {
        participantId: "pharmaco",
        catalog: "true",
        providerDid: "did:web:alpha-klinik.de:participant",
      },
    });
    expect(catalog.status).toBe(502);
    expect(catalog.body.error).toBe("Failed to fetch provider catalog");
    expect(catalog.body.detail).toMatch(detail);

    const transfer = await call(ds, name, "POST /api/transfers", {
      body: {
        participantId: "pharmaco",
        contractId: "agr-1",
        counterPartyAddress: "http://p/api/dsp/alpha/2025-1",
      },
    });
    expect(transfer.status).toBe(502);
    expect(transfer.body).toEqual({ error: expect.stringMatching(detail) });

    const asset = await call(ds, name, "POST /api/assets", {
      body: { participantId: "alpha", assetId: "a", name: "A" },
    });
    expect(asset).toMatchObject({ status: 502, body: { error: "Failed to create asset" } });

    const participant = await call(ds, name, "POST /api/participants", {
      body: { displayName: "New Org", role: "DATA_USER" },
    });
    expect(participant).toMatchObject({ status: 502, body: { error: "Failed to create participant" } });

    for (const r of [negotiation, catalog, transfer, asset, participant])
      expect(r.ms).toBeLessThan(BUDGET_MS);
  });

  it("a demonstration transfer still works", async () => {
    const res = await call(ds, name, "POST /api/transfers", {
      body: {
        participantId: "pharmaco",
        contractId: "agreement-fhir-cohort-bundle-001",
        counterPartyAddress: "http://p",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body._demo).toBe(true);
  });
});

describe("a whole list stays within its budget when each part is slow", () => {
  it("grouped assets: fast participant list, slow asset lists", async () => {
    const ds = await dataspace(double.url);
    double
      .on("GET", MGMT, {
        json: [1, 2, 3].map((i) => ({ "@id": `c${i}`, identity: `did:web:x:c${i}`, state: "ACTIVATED" })),
      })
      .on("POST", /\/assets\/request$/, { slowMs: 2500, json: [] });
    const res = await call(ds, "slow parts", "GET /api/assets");
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(BUDGET_MS);
    expect(res.body.slice(0, 3).map((g: JsonBody) => g.assets)).toEqual([[], [], []]);
  });

  it("participants: slow tenant manager does not delay the list past the budget", async () => {
    const ds = await dataspace(double.url);
    double
      .on("GET", MGMT, {
        json: [{ "@id": "c1", identity: "did:web:lmc.nl:participant", state: "ACTIVATED" }],
      })
      .on("GET", `${TM}/tenants`, { slowMs: 2500, json: [] });
    const res = await call(ds, "slow tenant manager", "GET /api/participants");
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(BUDGET_MS);
    expect(res.body[0].displayName).toBe("Limburg Medical Centre");
  });
});

describe("empty lists", () => {
  it("no live records: the demonstration records; no ACTIVATED context: the demonstration participants", async () => {
    const ds = await dataspace(double.url);
    double
      .on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, { json: [] })
      .on("POST", `${MGMT}/pharmaco/transferprocesses/request`, { json: [] })
      .on("GET", MGMT, { json: [{ "@id": "c1", identity: "did:web:x:c1", state: "CREATED" }] });
    expect(
      (await call(ds, "-", "GET /api/negotiations", { query: { participantId: "pharmaco" } })).body,
    ).toEqual(demo.sharedOf("pharmaco").negotiations);
    expect(
      (await call(ds, "-", "GET /api/transfers", { query: { participantId: "pharmaco" } })).body,
    ).toEqual(demo.sharedOf("pharmaco").transfers);
    expect((await call(ds, "-", "GET /api/participants")).body).toEqual(demo.participants());
    expect((await call(ds, "-", "GET /api/assets")).body).toEqual(demo.assetGroups());
  });
});

describe("DEMO_RECORDS=off", () => {
  it("connector down: lists answer 502 instead of demonstration records", async () => {
    const ds = await dataspace(down, { DEMO_RECORDS: "off" });
    const negotiations = await call(ds, "down, demo off", "GET /api/negotiations", {
      query: { participantId: "pharmaco" },
    });
    expect(negotiations.status).toBe(502);
    expect(negotiations.body).toEqual({
      error: "Failed to fetch negotiations",
      detail: "connector is unreachable (ECONNREFUSED)",
    });
    expect(
      (await call(ds, "down, demo off", "GET /api/transfers", { query: { participantId: "pharmaco" } })).body
        .error,
    ).toBe("Failed to fetch transfers");
    expect((await call(ds, "down, demo off", "GET /api/assets")).body.error).toBe("Failed to list assets");
    expect(
      (await call(ds, "down, demo off", "GET /api/assets", { query: { participantId: "lmc" } })).body.error,
    ).toBe("Failed to list assets");
    expect((await call(ds, "down, demo off", "GET /api/tasks", { as: "researcher" })).body.error).toBe(
      "Failed to list tasks",
    );
    const participants = await call(ds, "down, demo off", "GET /api/participants");
    expect(participants).toMatchObject({ status: 502, body: { error: "Failed to list participants" } });
    expect(participants.body).not.toHaveProperty("detail");
    const unknown = await call(ds, "down, demo off", "GET /api/negotiations/:id", {
      params: { id: "negotiation-demo-irs-alpha-003" },
      query: { participantId: "irs" },
    });
    expect(unknown.status).toBe(502);
  });

  it("empty connector lists stay empty; no ACTIVATED context is a 502 for participants", async () => {
    const ds = await dataspace(double.url, { DEMO_RECORDS: "off" });
    double
      .on("POST", `${MGMT}/pharmaco/contractnegotiations/request`, { json: [] })
      .on("GET", MGMT, { json: [] });
    expect(
      (await call(ds, "-", "GET /api/negotiations", { query: { participantId: "pharmaco" } })).body,
    ).toEqual([]);
    expect((await call(ds, "-", "GET /api/assets")).body).toEqual([]);
    expect((await call(ds, "-", "GET /api/participants")).body).toEqual({
      error: "Failed to list participants",
    });
  });
});

describe("tenant manager failures on onboarding", () => {
  it("answers 502 Failed to create participant when the tenant cannot be created", async () => {
    const ds = await dataspace(double.url);
    double
      .on("GET", `${TM}/cells`, { json: [{ id: "cell-1" }] })
      .on("GET", `${TM}/dataspace-profiles`, { json: [{ id: "p-1" }] })
      .on("POST", `${TM}/tenants`, { status: 500 });
    const res = await call(ds, "tenant manager 500", "POST /api/participants", {
      body: { displayName: "X", role: "DATA_USER" },
    });
    expect(res).toMatchObject({ status: 502, body: { error: "Failed to create participant" } });
  });
});
