import { describe, expect, it } from "vitest";
import type { Dataspace, DataspaceDeps } from "../../server/dataspace";
import { bundledDemoRecords } from "../../server/dataspace/demo-records";
import { dataspaceRulesHarness, MGMT, type JsonBody } from "./dataspace-rules.support";
import { callDataspace } from "../support/dataspace-call";

/**
 * GET /api/assets (grouped) is kept per set of upstream answers (server/dataspace/assets.ts,
 * server/http/kept): reused while the read cache hands out the same answers,
 * and a write through this server, a changed upstream answer or a failed lookup shows at once.
 */

const demo = bundledDemoRecords();
const h = dataspaceRulesHarness();
const remote = (deps: Partial<DataspaceDeps> = {}) => h.dataspace({ UPSTREAM_TIMEOUT_MS: "1500" }, deps);

const grouped = (ds: Dataspace) => callDataspace(ds, "GET /api/assets");

function upstream(assets: Record<string, JsonBody[]>) {
  h.double.on("GET", MGMT, {
    reply: () => ({
      json: [
        { "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" },
        { "@id": "beta", identity: "did:web:beta.example:participant" },
        { "@id": "gamma", identity: "did:web:gamma.example:participant", state: "CREATED" },
      ],
    }),
  });
  for (const id of ["alpha", "beta", "gamma"])
    h.double.on("POST", `${MGMT}/${id}/assets/request`, {
      reply: () => (assets[id] ? { json: assets[id] } : { status: 500, json: [{ message: "down" }] }),
    });
}

describe("the grouped asset list kept", () => {
  it("is reused while the read cache's answers are the same", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream({ alpha: [{ "@id": "a-1", properties: { name: "First" } }], beta: [{ "@id": "b-1" }] });
    const first = await ds.listAssetGroups();
    expect(await ds.listAssetGroups()).toBe(first);
    const body = (await grouped(ds)).body;
    expect(body.map((g: JsonBody) => g.participantId).slice(0, 2)).toEqual(["alpha", "beta"]);
    expect(body[0].assets.map((a: JsonBody) => a["@id"])).toEqual([
      "a-1",
      ...demo
        .assetGroups()
        .filter((g) => g.identity === "did:web:alpha-klinik.de:participant")
        .flatMap((g) => g.assets.map((a) => a["@id"])),
    ]);
    expect(body[1].assets).toEqual([
      {
        "@id": "b-1",
        name: "b-1",
        description: "",
        contenttype: "",
        "edc:name": "b-1",
        "edc:description": "",
        "edc:contenttype": "",
      },
    ]);
  });

  it("a write through this server then a read returns the write", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    const alpha: JsonBody[] = [{ "@id": "a-1", properties: { name: "First" } }];
    upstream({ alpha, beta: [] });
    h.double.on("POST", `${MGMT}/alpha/assets`, {
      reply: (req) => {
        alpha.push(req.body);
        return { json: { "@type": "IdResponse", "@id": (req.body as JsonBody)["@id"] } };
      },
    });
    const ids = async () =>
      ((await grouped(ds)).body[0].assets as JsonBody[]).map((a) => a["@id"]).filter((id) => /^a-/.test(id));
    expect(await ids()).toEqual(["a-1"]);
    expect(await ids()).toEqual(["a-1"]);
    const created = await callDataspace(ds, "POST /api/assets", {
      as: "clinic",
      body: { participantId: "alpha", assetId: "a-2", name: "Second" },
    });
    expect(created.status).toBe(201);
    expect(await ids()).toEqual(["a-1", "a-2"]);
  });

  it("without a kept answer, every read shows the upstream as it is now, a failed lookup included", async () => {
    const ds = await remote();
    const assets: Record<string, JsonBody[]> = { alpha: [{ "@id": "a-1" }], beta: [{ "@id": "b-1" }] };
    upstream(assets);
    const first = (await grouped(ds)).body;
    expect(first[1].assets.map((a: JsonBody) => a["@id"])).toEqual(["b-1"]);
    assets.beta.push({ "@id": "b-2" });
    const second = (await grouped(ds)).body;
    expect(second[1].assets.map((a: JsonBody) => a["@id"])).toEqual(["b-1", "b-2"]);
    delete assets.beta; // beta's lookup now fails: an empty list, the rest as before
    const third = (await grouped(ds)).body;
    expect(third[1]).toEqual({
      participantId: "beta",
      identity: "did:web:beta.example:participant",
      assets: [],
    });
    expect(third[0]).toEqual(second[0]);
  });

  it("falls back to the demonstration entries alone when the participant lookup fails", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    h.double.on("GET", MGMT, { status: 500, json: [{ message: "down" }] });
    const res = await grouped(ds);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(demo.assetGroups());
  });
});
