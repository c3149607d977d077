import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../audit/log";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { LAYERS, type GraphEdge, type GraphResponse } from "./model";
import { createSqliteGraphStore } from "./sqlite-store";
import type { GraphStore } from "./store";
import { seedStore } from "./synthetic/seed";

/**
 * The embedded store's edges among a set of nodes (sample and expand) are found in one statement:
 * the same edges in the same order as reading every outgoing edge of each node, in the set's order,
 * and keeping those whose target is in the set.
 */

let db: Db;
let graph: GraphStore;
beforeAll(async () => {
  db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  graph = createSqliteGraphStore(db, await createAuditLog(rel, db));
  await seedStore(graph, { patients: 60 });
});
afterAll(() => db?.close());

/** the reference: each node's outgoing edges by the source index, filtered in JavaScript */
function reference(g: GraphResponse): GraphEdge[] {
  const ids = new Set(g.nodes.map((n) => n.id));
  const from = db.prepare(
    "SELECT id, source, target, type FROM graph_edges WHERE source = ? ORDER BY type, seq",
  );
  const out: GraphEdge[] = [];
  for (const id of ids)
    for (const e of from.all(id) as GraphEdge[])
      if (ids.has(e.target)) out.push({ id: e.id, source: e.source, target: e.target, type: e.type });
  return out;
}

describe("edges among sampled nodes", () => {
  it("are the reference's, in its order, for every layer, all layers and several limits", async () => {
    let total = 0;
    for (const layers of [
      ...LAYERS.map((l) => [l]),
      [...LAYERS],
      ["l3", "l4"],
    ] as (typeof LAYERS)[number][][])
      for (const limit of [1, 37, 400, 5000]) {
        const g = await graph.sampleGraph(layers, limit, layers.join(","));
        expect(g.edges).toEqual(reference(g));
        expect(g.meta.returnedEdges).toBe(g.edges.length);
        total += g.edges.length;
      }
    expect(total).toBeGreaterThan(100); // the comparison saw edges, not only empty samples
  });

  it("are the reference's for an expansion", async () => {
    for (const depth of [1, 2, 3]) {
      const g = (await graph.expand("patient-000001", depth, 1000))!;
      expect(g.edges.length).toBeGreaterThan(0);
      expect(g.edges).toEqual(reference(g));
    }
  });
});
