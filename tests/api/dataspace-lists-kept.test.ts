import { describe, expect, it } from "vitest";
import {
  negotiationsAcross,
  type Dataspace,
  type DataspaceDeps,
  type HeldNegotiation,
} from "../../server/dataspace";
import { bundledDemoRecords } from "../../server/dataspace/demo-records";
import { dataspaceRulesHarness, MGMT, type JsonBody } from "./dataspace-rules.support";
import { callDataspace } from "../support/dataspace-call";
import { encodedOnce } from "../../server/http/kept/encoded";

/**
 * GET /api/participants, GET /api/transfers and GET /api/negotiations (the lists) are kept per set of
 * inputs (server/dataspace/participants.ts, transfers.ts, negotiations.ts; server/http/kept): reused while the read cache hands out the same answers, and a write through
 * this server, a changed upstream answer or a failed lookup shows at once.
 */

const demo = bundledDemoRecords();
const h = dataspaceRulesHarness();
const remote = (deps: Partial<DataspaceDeps> = {}) => h.dataspace({ UPSTREAM_TIMEOUT_MS: "1500" }, deps);
const TM = "/tm/api/v1alpha1";
const ids = (body: readonly JsonBody[]) => body.map((r) => r["@id"] as string);

function participantsUpstream(tenantName: { value: string }) {
  h.double
    .on("GET", MGMT, {
      reply: () => ({
        json: [
          { "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" },
          { "@id": "gamma", identity: "did:web:gamma.example:participant", state: "CREATED" },
        ],
      }),
    })
    .on("GET", `${TM}/tenants`, {
      reply: () => ({ json: [{ id: "t-alpha", properties: { displayName: tenantName.value } }] }),
    })
    .on("GET", `${TM}/tenants/t-alpha/participant-profiles`, {
      json: [{ id: "pp-1", identifier: "did:web:alpha-klinik.de:participant" }],
    });
}

describe("the participant list kept", () => {
  it("is reused while the read cache's answers are the same", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    participantsUpstream({ value: "Alpha Klinik (tenant)" });
    const first = await ds.listParticipants();
    expect(await ds.listParticipants()).toBe(first);
    const res = await callDataspace(ds, "GET /api/participants");
    expect(res.status).toBe(200);
    expect(res.body.map((p: JsonBody) => [p.participantId, p.displayName])).toEqual([
      ["alpha", "Alpha Klinik (tenant)"],
    ]);
  });

  it("a rename through this server then a read shows the new name", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    const name = { value: "Alpha Klinik (tenant)" };
    participantsUpstream(name);
    h.double.on("GET", `${MGMT}/alpha`, {
      json: { "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" },
    });
    h.double.on("PATCH", `${TM}/tenants/t-alpha`, {
      reply: (req) => {
        const b = req.body as JsonBody;
        name.value = b.properties?.displayName ?? b.displayName ?? name.value;
        return { json: { id: "t-alpha", properties: { displayName: name.value } } };
      },
    });
    const names = async () =>
      ((await callDataspace(ds, "GET /api/participants")).body as JsonBody[]).map((p) => p.displayName);
    expect(await names()).toEqual(["Alpha Klinik (tenant)"]);
    const renamed = await callDataspace(ds, "PATCH /api/participants/:id", {
      params: { id: "alpha" },
      body: { displayName: "Alpha Klinik Berlin" },
    });
    expect(renamed.status).toBe(200);
    expect(await names()).toEqual(["Alpha Klinik Berlin"]);
  });

  it("without a kept answer, every read shows the upstream as it is now; a failed list falls back, then 502", async () => {
    const ds = await remote();
    const name = { value: "First" };
    participantsUpstream(name);
    const displayNames = async () =>
      ((await callDataspace(ds, "GET /api/participants")).body as JsonBody[]).map((p) => p.displayName);
    expect(await displayNames()).toEqual(["First"]);
    name.value = "Second";
    expect(await displayNames()).toEqual(["Second"]);
    h.double.on("GET", MGMT, { status: 500, json: [{ message: "down" }] });
    const fallback = await callDataspace(ds, "GET /api/participants");
    expect(fallback.status).toBe(200);
    expect(fallback.body).toEqual(demo.participants());
    const strict = await h.dataspace({ UPSTREAM_TIMEOUT_MS: "1500", DEMO_RECORDS: "off" });
    const failed = await callDataspace(strict, "GET /api/participants");
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({ error: "Failed to list participants" });
  });
});

describe("the participant list's time-out", () => {
  it("keeps the whole answer within the time-out when the tenant manager is slow in both stages", async () => {
    const ds = await h.dataspace({ UPSTREAM_TIMEOUT_MS: "1000" });
    h.double
      .on("GET", MGMT, {
        json: [{ "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" }],
      })
      .on("GET", `${TM}/tenants`, {
        json: [{ id: "t-alpha", properties: { displayName: "Alpha (tenant)" } }],
        delayMs: 700,
      })
      .on("GET", `${TM}/tenants/t-alpha/participant-profiles`, {
        json: [{ id: "pp-1", identifier: "did:web:alpha-klinik.de:participant" }],
        delayMs: 700,
      });
    const t0 = Date.now();
    const res = await callDataspace(ds, "GET /api/participants");
    // the profiles' lookup gets what is left of the time-out (about 300 ms), fails, and the list still answers
    expect(Date.now() - t0).toBeLessThan(1300);
    expect(res.status).toBe(200);
    expect(res.body.map((p: JsonBody) => p.participantId)).toEqual(["alpha"]);
  });
});

describe("the transfer and negotiation lists kept", () => {
  const transfers = (ds: Dataspace, id = "pharmaco") =>
    callDataspace(ds, "GET /api/transfers", { query: { participantId: id } });
  const negotiations = (ds: Dataspace, id = "pharmaco") =>
    callDataspace(ds, "GET /api/negotiations", { query: { participantId: id } });

  function upstream(live: { transfers: JsonBody[]; negotiations: JsonBody[] } | null) {
    for (const [path, key] of [
      ["transferprocesses", "transfers"],
      ["contractnegotiations", "negotiations"],
    ] as const)
      h.double.on("POST", `${MGMT}/pharmaco/${path}/request`, {
        reply: () => (live ? { json: live[key] } : { status: 500, json: [{ message: "down" }] }),
      });
  }

  it("are reused while the read cache's answers are the same", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream({
      transfers: [{ "@id": "t-1", state: "STARTED" }],
      negotiations: [{ "@id": "n-1", state: "FINALIZED", contractAgreementId: "agreement-1" }],
    });
    const t = await ds.listTransfers("pharmaco");
    expect(await ds.listTransfers("pharmaco")).toBe(t);
    const n = await ds.listNegotiations("pharmaco");
    expect(await ds.listNegotiations("pharmaco")).toBe(n);
    // live first, the bundle's records after it; a live negotiation's agreement id named contractId
    const tb = (await transfers(ds)).body as JsonBody[];
    expect(ids(tb)).toEqual(["t-1", ...ids(demo.sharedOf("pharmaco").transfers)]);
    const nb = (await negotiations(ds)).body as JsonBody[];
    expect(nb[0]).toMatchObject({ "@id": "n-1", contractId: "agreement-1" });
    expect(ids(nb)).toEqual(["n-1", ...ids(demo.sharedOf("pharmaco").negotiations)]);
  });

  it("a demonstration transfer started here lists at once, for its participant only", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream({ transfers: [{ "@id": "t-1", state: "STARTED" }], negotiations: [] });
    h.double.on("POST", `${MGMT}/lmc/transferprocesses/request`, { json: [] });
    const before = ids((await transfers(ds)).body);
    const lmcBefore = ids((await transfers(ds, "lmc")).body);
    const started = await callDataspace(ds, "POST /api/transfers", {
      body: {
        participantId: "pharmaco",
        contractId: "agreement-fhir-demo-001",
        counterPartyAddress: "http://provider.example/api/dsp",
        assetId: "asset-1",
      },
    });
    expect(started.status).toBe(201);
    const after = ids((await transfers(ds)).body);
    expect(after).toEqual(["t-1", started.body["@id"], ...before.slice(1)]);
    expect(ids((await transfers(ds, "lmc")).body)).toEqual(lmcBefore);
  });

  it("without a kept answer, every read shows the upstream as it is now; a failed lookup falls back, or 502", async () => {
    const ds = await remote();
    const live = {
      transfers: [{ "@id": "t-1", state: "STARTED" }],
      negotiations: [{ "@id": "n-1", state: "FINALIZED" }],
    };
    upstream(live);
    expect(ids((await transfers(ds)).body)[0]).toBe("t-1");
    live.transfers.unshift({ "@id": "t-0", state: "STARTED" });
    live.negotiations.push({ "@id": "n-2", state: "FINALIZED" });
    expect(ids((await transfers(ds)).body).slice(0, 2)).toEqual(["t-0", "t-1"]);
    expect(ids((await negotiations(ds)).body).slice(0, 2)).toEqual(["n-1", "n-2"]);
    upstream(null);
    expect((await transfers(ds)).body).toEqual(demo.sharedOf("pharmaco").transfers);
    expect((await negotiations(ds)).body).toEqual(demo.sharedOf("pharmaco").negotiations);
    const strict = await h.dataspace({ UPSTREAM_TIMEOUT_MS: "1500", DEMO_RECORDS: "off" });
    const t = await transfers(strict);
    expect(t.status).toBe(502);
    expect(t.body.error).toBe("Failed to fetch transfers");
    const n = await negotiations(strict);
    expect(n.status).toBe(502);
    expect(n.body.error).toBe("Failed to fetch negotiations");
  });
});

describe("every participant's negotiations (the operator's list and home card)", () => {
  function upstream(list: JsonBody[]) {
    participantsUpstream({ value: "Alpha Klinik (tenant)" });
    h.double.on("POST", `${MGMT}/alpha/contractnegotiations/request`, { reply: () => ({ json: list }) });
  }
  const held = (across: readonly HeldNegotiation[]) =>
    across.map((x) => [x.participantId, x.negotiation["@id"]]);

  it("are reused while every list is the same, and show a changed list at once", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream([{ "@id": "n-a", state: "FINALIZED" }]);
    const across = await negotiationsAcross(ds);
    expect(held(across)).toEqual([["alpha", "n-a"]]);
    expect(await negotiationsAcross(ds)).toBe(across);
    expect(Object.isFrozen(across)).toBe(true);

    // without a kept answer, each read shows the connector as it is now
    const fresh = await remote();
    const live = [{ "@id": "n-a", state: "FINALIZED" }];
    upstream(live);
    expect(held(await negotiationsAcross(fresh))).toEqual([["alpha", "n-a"]]);
    live.push({ "@id": "n-b", state: "REQUESTED" });
    expect(held(await negotiationsAcross(fresh))).toEqual([
      ["alpha", "n-a"],
      ["alpha", "n-b"],
    ]);
  });
});

describe("one negotiation's and a provider catalogue's answers", () => {
  const one = (ds: Dataspace, id: string) =>
    callDataspace(ds, "GET /api/negotiations/:id", { params: { id }, query: { participantId: "pharmaco" } });

  it("are the connector's answer as the read cache holds it", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    const live = { state: "REQUESTED" };
    h.double.on("GET", `${MGMT}/pharmaco/contractnegotiations/n-1`, {
      reply: () => ({ json: { "@id": "n-1", state: live.state, contractAgreementId: "agreement-1" } }),
    });
    expect(await ds.getNegotiation("pharmaco", "n-1")).toMatchObject({
      "@id": "n-1",
      contractId: "agreement-1",
    });
    expect((await one(ds, "n-1")).body).toMatchObject({ state: "REQUESTED" });
    // kept while the read cache's answer and the permit recorded for it are the same: encoded once
    const kept = await ds.getNegotiation("pharmaco", "n-1");
    expect(await ds.getNegotiation("pharmaco", "n-1")).toBe(kept);
    expect(encodedOnce(kept)).toBeDefined();

    // no kept answer (a remote connector's default): each read shows the connector as it is now
    const fresh = await remote();
    expect((await one(fresh, "n-1")).body).toMatchObject({ state: "REQUESTED" });
    live.state = "FINALIZED";
    expect((await one(fresh, "n-1")).body).toMatchObject({ state: "FINALIZED" });
  });

  it("fall back to the bundle's record, then 404 or 502, as the object route does", async () => {
    const ds = await remote();
    const bundled = demo.sharedOf("pharmaco").negotiations[0];
    h.double.on("GET", `${MGMT}/pharmaco/contractnegotiations/${bundled["@id"]}`, {
      status: 404,
      json: [{ message: "not found" }],
    });
    const fallback = await one(ds, String(bundled["@id"]));
    expect(fallback.status).toBe(200);
    expect(fallback.body).toEqual(bundled);
    // the bundle's shared record, sent from bytes encoded once (no copy per request); a transfer's too
    expect(encodedOnce(await ds.getNegotiation("pharmaco", String(bundled["@id"])))).toBeDefined();
    const transfer = demo.sharedOf("pharmaco").transfers[0];
    h.double.on("GET", `${MGMT}/pharmaco/transferprocesses/${transfer["@id"]}`, {
      status: 404,
      json: [{ message: "not found" }],
    });
    const t = await ds.getTransfer("pharmaco", String(transfer["@id"]));
    expect(t).toEqual(transfer);
    expect(encodedOnce(t)).toBeDefined();
    const strict = await h.dataspace({ UPSTREAM_TIMEOUT_MS: "1500", DEMO_RECORDS: "off" });
    const missing = await one(strict, String(bundled["@id"]));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("Negotiation not found");
    h.double.on("GET", `${MGMT}/pharmaco/contractnegotiations/n-9`, {
      status: 500,
      json: [{ message: "down" }],
    });
    const down = await one(strict, "n-9");
    expect(down.status).toBe(502);
    expect(down.body.error).toBe("Failed to fetch negotiation");
  });

  it("send each provider answer as it came: fresh offer ids on each request, never kept", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    let n = 0;
    h.double.on("POST", `${MGMT}/pharmaco/catalog/request`, {
      reply: () => ({ json: { "@id": `catalog-${++n}`, "@type": "dcat:Catalog", "dcat:dataset": [] } }),
    });
    const ask = () =>
      callDataspace(ds, "GET /api/negotiations", {
        query: { participantId: "pharmaco", catalog: "true", providerDid: "did:web:provider.example" },
      });
    const a = await ask();
    const b = await ask();
    expect(a.status).toBe(200);
    expect(a.body["@id"]).toBe("catalog-1");
    expect(b.body["@id"]).toBe("catalog-2");
  });
});
