import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { createPostgresGraphStore } from "../../server/graph/postgres-store";
import { seedIfEmpty } from "../../server/graph/seed-on-start";
import { createSqliteGraphStore } from "../../server/graph/sqlite-store";
import { generateGraph } from "../../server/graph/synthetic/generate";
import { seedStore } from "../../server/graph/synthetic/seed";
import { LAYERS } from "../../server/graph/model";
import { openDatabase } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { testDatabaseUrl } from "../support/postgres";
import { openTestStore, type TestStore } from "../support/relational";

/**
 * The graph store in PostgreSQL (decision 0051) beyond the contract: two instances on one database
 * share one graph and each notices the other's writes, seeding is batched and resumable, and the graph
 * reads as the embedded store's does. Runs in the PostgreSQL pass (DATABASE_URL).
 */

const AUDIT = { actor: "t", action: "graph.test", target: "x", outcome: "ok", kind: "graph" };
const opened: TestStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function instance(pg: TestStore, rel = pg.rel) {
  const audit = await createAuditLog(rel);
  return { store: await createPostgresGraphStore(rel, audit), audit };
}

async function until(check: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("not within the time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.runIf(!!testDatabaseUrl())("the graph store in PostgreSQL", () => {
  it("is one graph for two instances, each noticing the other's writes in its per-version caches", async () => {
    const pg = await openTestStore("postgres");
    opened.push(pg);
    const a = await instance(pg);
    const b = await instance(pg, await pg.another());
    await a.store.importBatch(
      [{ id: "participant-a", label: "Participant", layer: "l1", properties: { displayName: "A" } }],
      [],
    );
    // B's kept layer counts, made before A's write
    await until(() => b.store.version() > 1);
    expect(await b.store.countNodes()).toBe(1);
    const before = b.store.version();
    const entry = await a.store.mutate(
      [
        {
          op: "createNode",
          node: { id: "dataset-a", label: "HealthDataset", layer: "l2", properties: { title: "On A" } },
        },
        {
          op: "createEdge",
          edge: { id: "pub-a", source: "participant-a", target: "dataset-a", type: "PUBLISHES" },
        },
      ],
      AUDIT,
    );
    // the node is read on B at once, and B's version moves when A's notice arrives
    expect((await b.store.getNode("dataset-a"))?.properties).toEqual({ title: "On A" });
    await until(() => b.store.version() !== before);
    expect(await b.store.countNodes()).toBe(2);
    expect((await b.store.sampleGraph(LAYERS, 10, "all")).meta.totalEdges).toBe(1);
    // the write's audit entry is in the shared log, committed with it
    expect((await b.audit.list({ limit: 5 })).map((e) => e.id)).toContain(entry.id);
    // a write refused on B (the id exists) changes nothing and appends nothing
    const count = await b.audit.count();
    await expect(
      b.store.mutate(
        [
          {
            op: "createNode",
            node: { id: "dataset-a", label: "HealthDataset", layer: "l2", properties: {} },
          },
        ],
        AUDIT,
      ),
    ).rejects.toMatchObject({ status: 409 });
    expect(await b.audit.count()).toBe(count);
  });

  it("keeps its node and edge counts per layer through every kind of write, without counting the tables", async () => {
    const pg = await openTestStore("postgres");
    opened.push(pg);
    const { store } = await instance(pg);
    // the counts as the tables hold them, counted
    const counted = async () => {
      const { rows } = await sql<{ nodes: number; edges: number }>`SELECT
          (SELECT COUNT(*) FROM graph_nodes WHERE layer IN ('l2', 'l3')) AS nodes,
          (SELECT COUNT(*) FROM graph_edges WHERE source_layer IN ('l2', 'l3') AND target_layer IN ('l2', 'l3')) AS edges`.execute(
        pg.rel.db,
      );
      return { nodes: Number(rows[0]!.nodes), edges: Number(rows[0]!.edges) };
    };
    const kept = async () => {
      const meta = (await store.sampleGraph(["l2", "l3"], 1, "x")).meta;
      return { nodes: meta.totalNodes, edges: meta.totalEdges };
    };
    const node = (id: string, label: string) => ({ id, label, layer: "l3" as const, properties: {} });
    const edge = (source: string, target: string) => ({
      id: `${source}>${target}`,
      source,
      target,
      type: "HAS",
    });
    // a batch, the same batch again (replaced, not added), and one with a new edge
    const batch = [node("p1", "Patient"), node("c1", "Condition"), node("c2", "Condition")];
    await store.importBatch(batch, [edge("p1", "c1")]);
    await store.importBatch(batch, [edge("p1", "c1"), edge("p1", "c2")]);
    expect(await kept()).toEqual({ nodes: 3, edges: 2 });
    const steps: Array<Parameters<typeof store.mutate>[0]> = [
      [{ op: "createNode", node: { id: "d1", label: "HealthDataset", layer: "l2", properties: {} } }],
      [{ op: "createEdge", edge: { id: "inc", source: "d1", target: "p1", type: "INCLUDES" } }],
      [{ op: "updateNode", id: "c1", properties: { code: "x" } }],
      [{ op: "deleteEdge", id: "p1>c2" }],
      [{ op: "deleteNode", id: "p1" }],
    ];
    for (const step of steps) {
      await store.mutate(step, AUDIT);
      expect(await kept()).toEqual(await counted());
    }
    expect(await kept()).toEqual({ nodes: 3, edges: 0 });
  });

  it("seeds an empty graph in bulk, its secondary indexes built at the end, or at the next start if interrupted", async () => {
    const pg = await openTestStore("postgres");
    opened.push(pg);
    const { store } = await instance(pg);
    const SECONDARY = [
      "graph_edges_layers",
      "graph_edges_source",
      "graph_edges_target",
      "graph_nodes_label",
      "graph_nodes_layer",
    ];
    const secondary = async () =>
      (
        await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
          WHERE schemaname = current_schema() AND tablename IN ('graph_nodes', 'graph_edges') ORDER BY 1`.execute(
          pg.rel.db,
        )
      ).rows
        .map((r) => r.name)
        .filter((n) => SECONDARY.includes(n));
    expect(await secondary()).toEqual(SECONDARY);
    // the seed of the empty graph: the batches are written without them, then they are built
    const during: string[][] = [];
    const importBatch = store.importBatch.bind(store);
    store.importBatch = async (nodes, edges) => {
      during.push(await secondary());
      await importBatch(nodes, edges);
    };
    await seedIfEmpty({ graph: store, config: { seedPatients: 300 } }, { progress: false });
    expect(during.length).toBeGreaterThan(1);
    expect(during.every((d) => d.length === 0)).toBe(true);
    expect(await secondary()).toEqual(SECONDARY);
    expect(await store.countWhere("Patient")).toBe(300);
    // and they serve the reads (a layer's first nodes by the (layer, seq) index)
    const plan = await sql<{
      "QUERY PLAN": string;
    }>`EXPLAIN SELECT id FROM graph_nodes WHERE layer = 'l3' ORDER BY seq LIMIT 5`.execute(pg.rel.db);
    expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("graph_nodes_layer");
    // a load killed before its end leaves them dropped: the next start builds them
    await sql.raw("DROP INDEX graph_edges_target, graph_nodes_layer").execute(pg.rel.db);
    await instance(pg);
    expect(await secondary()).toEqual(SECONDARY);
  }, 120_000);

  it("seeds in multi-row batches, completes an interrupted seed, and reads as the embedded store", async () => {
    const pg = await openTestStore("postgres");
    opened.push(pg);
    const { store } = await instance(pg);
    const PATIENTS = 300;
    // interrupted: the shared batches and the first 250 patients stored, then the process died
    // dated as seed-on-start dates the marketplace: the day of seeding in Berlin
    const marketplaceDay = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date());
    const batches = generateGraph({ patients: PATIENTS, marketplaceDay });
    for (let i = 0; i < 3; i++) {
      const batch = batches.next().value!;
      await store.importBatch(batch.nodes, batch.edges);
    }
    expect(await store.countWhere("Patient")).toBe(250);
    await seedIfEmpty({ graph: store, config: { seedPatients: PATIENTS } }, { progress: false });
    expect(await store.countWhere("Patient")).toBe(PATIENTS);
    // the same graph as one uninterrupted seed on the embedded store, sampled and expanded alike
    const db = openDatabase(":memory:");
    const embedded = createSqliteGraphStore(db, await createAuditLog(openSqliteRelational(db), db));
    await seedStore(embedded, { patients: PATIENTS, marketplaceDay });
    try {
      const [want, got] = [await embedded.counts(), await store.counts()];
      expect(got).toEqual(want);
      for (const layers of [LAYERS, ["l3"] as const]) {
        expect(await store.sampleGraph(layers, 300, "x")).toEqual(
          await embedded.sampleGraph(layers, 300, "x"),
        );
      }
      const patient = (await embedded.findNodes({ label: "Patient", limit: 1, offset: 7 }))[0]!;
      expect(await store.expand(patient.id, 2, 50)).toEqual(await embedded.expand(patient.id, 2, 50));
      expect(
        await store.findNodes({ label: "Patient", where: { gender: patient.properties.gender }, limit: 20 }),
      ).toEqual(
        await embedded.findNodes({
          label: "Patient",
          where: { gender: patient.properties.gender },
          limit: 20,
        }),
      );
    } finally {
      db.close();
    }
  }, 120_000);
});
