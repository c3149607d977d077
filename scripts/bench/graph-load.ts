/**
 * Loads the synthetic population into a real graph store (the PostgreSQL graph or Neo4j) through the
 * store's own `importBatch`, as a hub seeds on start, and times it; then times the graph routes'
 * store calls uncached (the first read after a write). For issue 35's scale figures:
 *
 *   npx tsx scripts/bench/graph-load.ts --store postgres --patients 10000
 *   npx tsx scripts/bench/graph-load.ts --store neo4j --patients 10000
 *   npx tsx scripts/bench/graph-load.ts --store neo4j --patients 10000 --import ./export
 *
 * With `--import` (a directory written by `scripts/seed-export.ts --format csv --patients N`) the Neo4j
 * started here imports it with `neo4j-admin database import full` before it starts (decision 0068), and
 * the load timed is that import, Neo4j's first start on it and the hub's start-up work (its constraint
 * and indexes built over the imported graph); the store then finds N patients and seeds nothing.
 *
 * Starts a throw-away PostgreSQL (scripts/postgres.mjs) or Neo4j (scripts/real-systems/neo4j.mjs)
 * unless DATABASE_URL / NEO4J_URI is set. Prints the load average beside every figure.
 */
import os from "node:os";
import { createAuditLog } from "../../server/audit/log";
import { LAYERS } from "../../server/graph/model";
import { createNeo4jGraphStore } from "../../server/graph/neo4j-store";
import { createPostgresGraphStore } from "../../server/graph/postgres-store";
import { seedIfEmpty } from "../../server/graph/seed-on-start";
import type { GraphCalls, GraphStore } from "../../server/graph/store";
import { openPostgresRelational } from "../../server/storage/relational/postgres";
// @ts-expect-error -- a plain ES module without types (scripts/postgres.mjs)
import { startPostgres } from "../postgres.mjs";
// @ts-expect-error -- a plain ES module without types (scripts/real-systems/neo4j.mjs)
import { startNeo4j } from "../real-systems/neo4j.mjs";

const argv = process.argv.slice(2);
const arg = (k: string, d: string) => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 ? argv[i + 1]! : d;
};
const storeKind = arg("store", "postgres");
const patients = Number(arg("patients", "10000"));
const importFrom = arg("import", "");
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join("/");

async function main() {
  // the load's clock: from the import (with --import), else from the seed
  let t0 = performance.now();
  const stops: Array<() => Promise<void>> = [];
  let pgUrl: string = process.env.DATABASE_URL ?? "";
  if (!pgUrl) {
    const pg = await startPostgres({ log: console.log });
    stops.push(() => pg.stop());
    pgUrl = pg.url;
  }
  const rel = await openPostgresRelational(pgUrl);
  const audit = await createAuditLog(rel);
  let store: GraphStore;
  if (storeKind === "neo4j") {
    let conn: { uri: string; user: string; password: string } | undefined = process.env.NEO4J_URI
      ? {
          uri: process.env.NEO4J_URI,
          user: process.env.NEO4J_USER ?? "neo4j",
          password: process.env.NEO4J_PASSWORD ?? "",
        }
      : undefined;
    if (!conn) {
      t0 = performance.now();
      if (importFrom) console.log(`importing ${importFrom} (load ${load()})`);
      const neo = await startNeo4j({
        log: console.log,
        heap: arg("heap", "2g"),
        importFrom: importFrom || undefined,
      });
      if (importFrom)
        console.log(
          `imported and started in ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${load()})`,
        );
      stops.push(() => neo.stop());
      conn = neo as { uri: string; user: string; password: string };
    }
    store = await createNeo4jGraphStore({ ...conn!, database: undefined }, audit, rel);
  } else store = await createPostgresGraphStore(rel, audit);
  try {
    console.log(`loading ${patients} patients into ${storeKind} (load ${load()})`);
    if (!importFrom) t0 = performance.now();
    const seed = (graph: GraphCalls) =>
      seedIfEmpty({ graph: graph as GraphStore, config: { seedPatients: patients } }, { progress: true });
    if (store.whenReachable) {
      // seeded by the store's start-up work (as a hub does), then its calls are served
      const g = store;
      // a failed attempt is retried by the store, as a hub's is (not the end of the load)
      await new Promise<void>((resolve) =>
        g.whenReachable!((calls) =>
          seed(calls).then(resolve, (e: Error) => {
            console.log(`  start-up work failed (${e.message}); retried (load ${load()})`);
            throw e;
          }),
        ),
      );
      while (!(await store.ping(5_000))) await new Promise((r) => setTimeout(r, 100));
    } else await seed(store);
    console.log(`loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s (load ${load()})`);
    console.log(
      `  ${await store.countWhere("Patient")} patients, ${await store.countNodes()} nodes (load ${load()})`,
    );
    const time = async (name: string, f: () => Promise<unknown>) => {
      const t = performance.now();
      // a call that fails (503 past its deadline) is a figure too
      const failed = await f().then(
        () => "",
        (e: Error) => `, failed: ${e.message}`,
      );
      console.log(`  ${name}: ${(performance.now() - t).toFixed(0)} ms${failed} (load ${load()})`);
    };
    // the first read after a write: every per-version cache is cold
    await time("write (createNode)", () =>
      store.mutate(
        [
          {
            op: "createNode",
            node: { id: `bench-${Date.now()}`, label: "HealthDataset", layer: "l2", properties: {} },
          },
        ],
        { actor: "bench", action: "graph.bench", target: "x", outcome: "ok", kind: "graph" },
      ),
    );
    await time("graph all, 1,000 nodes", () => store.sampleGraph(LAYERS, 1000, "all"));
    for (const l of LAYERS) await time(`graph ${l}, 1,000 nodes`, () => store.sampleGraph([l], 1000, l));
    await time("graph all again", () => store.sampleGraph(LAYERS, 1000, "all"));
    // as the bench's first reads after a write: a write again, the counts kept before it followed
    await time("write (createNode) again", () =>
      store.mutate(
        [
          {
            op: "createNode",
            node: { id: `bench-again-${Date.now()}`, label: "HealthDataset", layer: "l2", properties: {} },
          },
        ],
        { actor: "bench", action: "graph.bench", target: "x", outcome: "ok", kind: "graph" },
      ),
    );
    await time("graph all after it", () => store.sampleGraph(LAYERS, 1000, "all"));
    await time("graph l3 after it", () => store.sampleGraph(["l3"], 1000, "l3"));
    const concept = (await store.findNodes({ label: "SnomedConcept", limit: 1 }))[0];
    if (concept) await time(`expand ${concept.id} depth 1 limit 200`, () => store.expand(concept.id, 1, 200));
    if (concept) await time(`expand ${concept.id} depth 2 limit 200`, () => store.expand(concept.id, 2, 200));
    await time("node Patient", () => store.getNode("patient-000001"));
    await time("patients page 50 at offset 5000", () =>
      store.findNodes({ label: "Patient", limit: 50, offset: 5000 }),
    );
    await time("countWhere Patient", () => store.countWhere("Patient"));
    await time("catalogue datasets", () => store.findNodes({ label: "HealthDataset", limit: 1000 }));
  } finally {
    await store.close();
    await rel.close();
    for (const s of stops) await s();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
