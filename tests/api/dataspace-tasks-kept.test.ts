import { describe, expect, it } from "vitest";
import type { Dataspace, DataspaceDeps } from "../../server/dataspace";
import { dataspaceRulesHarness, MGMT, type JsonBody } from "./dataspace-rules.support";
import { callDataspace, personaUser } from "../support/dataspace-call";

/**
 * GET /api/tasks is kept per set of inputs and caller scope (server/dataspace/tasks.ts, server/http/kept):
 * reused while the read cache hands out the same answers, kept apart per scope, and a write through this server or a changed upstream answer shows at once.
 */

const h = dataspaceRulesHarness();
const TM = "/tm/api/v1alpha1";
const remote = (deps: Partial<DataspaceDeps> = {}) => h.dataspace({ UPSTREAM_TIMEOUT_MS: "1500" }, deps);

const tasks = (ds: Dataspace, as = "admin") => callDataspace(ds, "GET /api/tasks", { as });
const ids = (body: JsonBody[]) => body.map((t) => t.id).filter((id: string) => /^(n|t)-/.test(id));

function upstream(negotiations: Record<string, JsonBody[]>) {
  h.double.on("GET", MGMT, {
    reply: () => ({
      json: [
        { "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" },
        { "@id": "beta", identity: "did:web:lmc.nl:participant" },
      ],
    }),
  });
  for (const id of ["alpha", "beta"]) {
    h.double.on("POST", `${MGMT}/${id}/contractnegotiations/request`, {
      reply: () =>
        negotiations[id] ? { json: negotiations[id] } : { status: 500, json: [{ message: "down" }] },
    });
    h.double.on("POST", `${MGMT}/${id}/transferprocesses/request`, {
      reply: () => ({ json: [{ "@id": `t-${id}`, state: "STARTED", assetId: "a", stateTimestamp: 1000 }] }),
    });
    // what the titles name the ids by (issue 40): the asset lists and the participant list's tenants
    h.double.on("POST", `${MGMT}/${id}/assets/request`, {
      reply: () => ({ json: [{ "@id": "a", properties: { name: `Asset of ${id}` } }] }),
    });
  }
  h.double.on("GET", `${TM}/tenants`, { reply: () => ({ json: [] }) });
}

const negotiation = (id: string, at: number) => ({
  "@id": id,
  state: "FINALIZED",
  assetId: "dataset-x",
  counterPartyId: "did:web:beta.example:participant",
  stateTimestamp: at,
});

describe("the task list kept", () => {
  it("is reused per scope while the read cache's answers are the same", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream({ alpha: [negotiation("n-a1", 2000)], beta: [negotiation("n-b1", 3000)] });
    for (const persona of ["admin", "clinic", "lmc"]) {
      const user = personaUser(persona);
      const first = await ds.listTasks(user);
      expect(await ds.listTasks(user)).toBe(first);
    }
    // the operator sees every context; the clinic only its own (alpha), the LMC only beta
    expect(ids((await tasks(ds, "admin")).body).sort()).toEqual(["n-a1", "n-b1", "t-alpha", "t-beta"]);
    expect(ids((await tasks(ds, "clinic")).body).sort()).toEqual(["n-a1", "t-alpha"]);
    // a scope of the same size is still another scope
    expect(ids((await tasks(ds, "lmc")).body).sort()).toEqual(["n-b1", "t-beta"]);
    expect(await ds.listTasks(personaUser("clinic"))).not.toBe(await ds.listTasks(personaUser("admin")));
  });

  it("is answered again without an upstream read once every list it needs is in the read cache", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream({ alpha: [negotiation("n-a1", 2000)], beta: [] });
    const first = await ds.listTasks(personaUser("admin"));
    const { misses, coalesced } = ds.readCache.stats;
    expect(await ds.listTasks(personaUser("admin"))).toBe(first);
    expect(ds.readCache.stats).toMatchObject({ misses, coalesced });
  });

  it("keeps scopes apart when they read the very same upstream answers", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    upstream({ alpha: [negotiation("n-a1", 2000)], beta: [] });
    // only alpha's context is in both scopes' reach: the operator and the clinic read the same arrays,
    // but the operator sees every demonstration record and the clinic only its organisation's
    h.double.on("GET", MGMT, {
      reply: () => ({
        json: [{ "@id": "alpha", identity: "did:web:alpha-klinik.de:participant", state: "ACTIVATED" }],
      }),
    });
    const admin = (await ds.listTasks(personaUser("admin"))) as JsonBody[];
    const clinic = (await tasks(ds, "clinic")).body as JsonBody[];
    expect(clinic).toEqual(await ds.listTasks(personaUser("clinic")));
    expect(clinic.length).toBeLessThan(admin.length);
    // its live context, and its organisation's demonstration records (the provider's side of the bundle's contracts)
    expect(new Set(clinic.map((t) => t.participantId))).toEqual(new Set(["alpha", "alphaklinik-berlin"]));
  });

  it("a write through this server then a read shows the upstream as it is now", async () => {
    const ds = await remote({ readCacheMs: 60_000 });
    const alpha = [negotiation("n-a1", 2000)];
    upstream({ alpha, beta: [] });
    h.double.on("POST", `${MGMT}/alpha/assets`, {
      reply: (req) => ({ json: { "@type": "IdResponse", "@id": (req.body as JsonBody)["@id"] } }),
    });
    expect(ids((await tasks(ds)).body)).toEqual(["n-a1", "t-alpha", "t-beta"]);
    alpha.push(negotiation("n-a2", 5000));
    // kept: the read cache still hands out the answer it had
    expect(ids((await tasks(ds)).body)).toEqual(["n-a1", "t-alpha", "t-beta"]);
    const created = await callDataspace(ds, "POST /api/assets", {
      as: "clinic",
      body: { participantId: "alpha", assetId: "a-2", name: "Second" },
    });
    expect(created.status).toBe(201);
    expect(ids((await tasks(ds)).body)).toEqual(["n-a2", "n-a1", "t-alpha", "t-beta"]);
  });

  it("without a kept answer, every read shows the upstream as it is now, a failed lookup included", async () => {
    const ds = await remote();
    const negotiations: Record<string, JsonBody[]> = { alpha: [negotiation("n-a1", 2000)], beta: [] };
    upstream(negotiations);
    expect(ids((await tasks(ds)).body)).toEqual(["n-a1", "t-alpha", "t-beta"]);
    negotiations.beta.push(negotiation("n-b1", 4000));
    expect(ids((await tasks(ds)).body)).toEqual(["n-b1", "n-a1", "t-alpha", "t-beta"]);
    delete negotiations.alpha; // alpha's negotiations now fail: its transfers stay, the rest as before
    expect(ids((await tasks(ds)).body)).toEqual(["n-b1", "t-alpha", "t-beta"]);
  });
});
