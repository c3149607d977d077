import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createAuditLog } from "../audit/log";
import type { OidcClient } from "../auth/oidc-client";
import { loadConfig } from "../config";
import { createDataspace, type Dataspace } from "../dataspace";
import type { GraphStore } from "../graph";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { topologyOf } from "./components";
import { createDirectory } from "./directory";
import { createDiscovery, type DiscoveryCheck } from "./discovery";
import { createMockDsp } from "./mock-dsp";
import { createOperatorService, type OperatorService } from "./service";

/**
 * The components, their topology and the discovery check answer the last background reading
 * (readings.ts): a restart forgets the reading at once, and a change of the directory or the graph is
 * seen by the next check. The directory and the catalogues are kept per version of what they read.
 * Against a configured connector (the upstream double) and an in-memory store.
 */

const CONTEXTS = "/mgmt/v3/participants";
const contexts = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ "@id": `ctx-${i}`, state: "ACTIVATED" }));

let double: UpstreamDouble;
const opened: { ds: Dataspace; db: Db; operator: OperatorService }[] = [];

beforeAll(async () => {
  double = await startUpstreamDouble();
});
afterAll(async () => {
  for (const o of opened) {
    await o.operator.close();
    await o.ds.close();
    o.db.close();
  }
  await double.close();
});
beforeEach(() => double.reset());

async function setup() {
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3997",
    CONNECTOR_MANAGEMENT_URL: `${double.url}/mgmt`,
    CONNECTOR_API_VERSION: "v3",
    UPSTREAM_TIMEOUT_MS: "1000",
  });
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const ds = await createDataspace(config, { db, audit });
  const graph = createSqliteGraphStore(db, audit);
  const oidc = { issuer: "http://127.0.0.1:1/idp", probe: async () => true } as unknown as OidcClient;
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
  opened.push({ ds, db, operator });
  /** a discovery check run now on the same stores, kept for nobody: the answer the route made per request before */
  const runCheck = async () => {
    const directory = await createDirectory(rel, audit, config.publicUrl);
    const mockDsp = createMockDsp({ graph, directory });
    return createDiscovery({ config, graph, directory, mockDsp }).runCheck();
  };
  return { operator, graph, oidc, runCheck };
}

/** the marketplace participant LMC, written into the graph (the discovery check and the catalogue find it) */
const addLmc = (graph: GraphStore) =>
  graph.mutate(
    [
      {
        op: "createNode",
        node: {
          id: "participant-lmc",
          label: "Participant",
          layer: "l1",
          properties: { slug: "lmc", did: "did:web:lmc.nl:participant", displayName: "LMC" },
        },
      },
    ],
    { action: "test.create", actor: "tester", target: "participant-lmc", kind: "catalogue" },
  );

const observedOf = (list: readonly { name: string; observed: string }[], name: string) =>
  list.find((c) => c.name === name)?.observed;

describe("components and topology from the last round of probes", () => {
  it("answer the round's value, kept, and a restart forgets the round at once", async () => {
    const { operator, oidc } = await setup();
    double.on("GET", CONTEXTS, { json: contexts(2) });
    const list = await operator.components();
    expect(observedOf(list.value, "connector")).toBe("2 participant contexts (2 activated)");
    const topology = await operator.topology();
    // the topology is the one drawn the way the route always drew it, from the same round
    expect(topology.value).toEqual(topologyOf(list.value, topology.value.meta.checkedAt, false));
    expect(topology.value.nodes.slice(1).map((n) => n.health)).toEqual(list.value.map((c) => c.health));
    // shared by every answer of the round: frozen all through (deepFrozen stops at an object already frozen)
    expect(Object.isFrozen(topology.value.nodes[1]) && Object.isFrozen(topology.value.edges[0])).toBe(true);

    // kept: the next reads answer the same value without probing again
    const probes = double.received("GET", CONTEXTS).length;
    expect((await operator.components()).value).toBe(list.value);
    expect(double.received("GET", CONTEXTS).length).toBe(probes);

    // the connector changes; a restart makes the next read show it (no waiting for the next round)
    double.on("GET", CONTEXTS, { json: contexts(3) });
    const t0 = new Date().toISOString();
    await operator.restart("connector", { oidc }, "admin");
    const after = await operator.components();
    expect(observedOf(after.value, "connector")).toBe("3 participant contexts (3 activated)");
    for (const c of after.value) expect(c.checkedAt >= t0, c.name).toBe(true);
    expect((await operator.topology()).value.meta.checkedAt >= t0).toBe(true);

    // a refused restart forgets the round too
    await expect(operator.restart("graph-store", { oidc }, "admin")).rejects.toMatchObject({ status: 409 });
    const t1 = after.value.map((c) => c.checkedAt).sort()[0]!;
    const afterRefusal = (await operator.components()).value;
    expect(afterRefusal).not.toBe(after.value);
    for (const c of afterRefusal) expect(c.checkedAt >= t1).toBe(true);
  });
});

/** the check without the parts that are measured when it runs */
const timeless = (c: DiscoveryCheck) => ({
  ...c,
  checkedAt: "",
  targets: c.targets.map((t) => ({ ...t, latencyMs: t.latencyMs === null ? null : 0 })),
});

describe("the discovery check from the last background check", () => {
  it("answers the check kept, the same as a check run now apart from its times", async () => {
    const { operator, runCheck } = await setup();
    const kept = await operator.discoveryCheck();
    expect(kept.value.participants.total).toBe(5);
    expect(timeless(kept.value)).toEqual(timeless(await runCheck()));
    expect((await operator.discoveryCheck()).value).toBe(kept.value); // kept
  });

  it("shows a directory write at once", async () => {
    const { operator } = await setup();
    const before = (await operator.discoveryCheck()).value;
    expect(before.participants.total).toBe(5);
    await operator.addDirectoryEntry(
      { did: "did:web:x.example", displayName: "X Example", catalogueUrl: null, country: null },
      "admin",
    );
    const added = (await operator.discoveryCheck()).value;
    expect(added.participants).toMatchObject({ total: 6, withoutCatalogue: ["X Example"] });
    await operator.removeDirectoryEntry("did:web:x.example", "admin");
    expect((await operator.discoveryCheck()).value.participants.total).toBe(5);
  });

  it("shows a graph write at once, and a restart forgets the check", async () => {
    const { operator, graph, oidc } = await setup();
    const lmc = (c: DiscoveryCheck) => c.targets.find((t) => t.id === "lmc")!;
    expect(lmc((await operator.discoveryCheck()).value)).toMatchObject({
      reachable: false,
      error: "no marketplace participant lmc",
    });
    await addLmc(graph);
    const after = (await operator.discoveryCheck()).value;
    expect(lmc(after)).toMatchObject({ reachable: true, error: null, datasets: 0 });

    double.on("GET", CONTEXTS, { json: contexts(1) });
    await operator.restart("connector", { oidc }, "admin");
    const next = (await operator.discoveryCheck()).value;
    expect(next).not.toBe(after);
    expect(next.checkedAt >= after.checkedAt).toBe(true);
  });
});

describe("the directory and the demonstration DSP catalogues, kept per version of what they read", () => {
  it("keep the directory until a directory write", async () => {
    const { operator } = await setup();
    const kept = await operator.directory();
    expect(await operator.directory()).toBe(kept); // kept
    await operator.addDirectoryEntry(
      { did: "did:web:kept.example", displayName: "Kept Example", catalogueUrl: null, country: null },
      "admin",
    );
    expect(JSON.stringify(await operator.directory())).toContain("did:web:kept.example");
    await operator.removeDirectoryEntry("did:web:kept.example", "admin");
    expect(JSON.stringify(await operator.directory())).not.toContain("did:web:kept.example");
  });

  it("keep a participant's catalogue, show a graph write at once, and keep no 404", async () => {
    const { operator, graph } = await setup();
    await expect(operator.catalog("lmc")).rejects.toMatchObject({ status: 404 });
    await addLmc(graph);
    const write = (displayName: string) =>
      graph.mutate([{ op: "updateNode", id: "participant-lmc", properties: { displayName } }], {
        action: "test.update",
        actor: "tester",
        target: "participant-lmc",
        kind: "catalogue",
      });
    await write("LMC");
    const kept = await operator.catalog("lmc");
    expect(JSON.stringify(kept)).toContain("LMC data products");
    expect(await operator.catalog("lmc")).toBe(kept); // kept
    // the same participant asked by DID: its own key, the same catalogue
    expect(await operator.catalog("did:web:lmc.nl:participant")).toEqual(kept);
    await write("Leiden Medical Centre");
    expect(JSON.stringify(await operator.catalog("lmc"))).toContain("Leiden Medical Centre data products");
  });
});
