/**
 * `npm run bench -- --graph neo4j|postgres`: the graph routes with the graph in a real Neo4j or in
 * PostgreSQL (issue 35), each started for the size as the tests start it (scripts/real-systems/neo4j.mjs,
 * scripts/postgres.mjs) and stopped after it; the hub seeds it on start. Only the rows that read the
 * graph store are driven (graph, expand, node, patient list, catalogue), and one more: the first read
 * after a write (a dataset published through POST /api/catalog, then the first GET, its caches cold).
 */
// @ts-expect-error -- a plain ES module without types (scripts/postgres.mjs)
import { startPostgres } from "../postgres.mjs";
// @ts-expect-error -- a plain ES module without types (scripts/real-systems/neo4j.mjs)
import { startNeo4j } from "../real-systems/neo4j.mjs";
import { askApi } from "./ids";

export type GraphKind = "neo4j" | "postgres";

/** the rows of ROUTES driven with a graph store */
export const GRAPH_STORE_ROUTES = new Set([
  "catalogue list",
  "graph all, limit 1000",
  "graph l3, limit 1000",
  "graph expand depth 2",
  "graph node",
  "patient list (holder)",
  "patient list, a middle page",
]);

/** the reads timed right after a write */
export const FIRST_READS = [
  { name: "graph all, limit 1000", path: "/api/graph?layer=all&limit=1000" },
  { name: "graph l3, limit 1000", path: "/api/graph?layer=l3&limit=1000" },
  { name: "catalogue list", path: "/api/catalog" },
  { name: "patient list (holder)", path: "/api/patient" },
];
export const FIRST_READ_TARGET_MS = 500;

/**
 * the system holding the graph, and the hub's environment pointing at it. With `importFrom` (a directory
 * written by `scripts/seed-export.ts --format csv`, Neo4j only) Neo4j imports it with neo4j-admin before
 * it starts (decision 0068), and the hub finds the population there instead of seeding it
 */
export async function startGraphSystem(
  kind: GraphKind,
  importFrom?: string,
): Promise<{ env: Record<string, string>; stop: () => Promise<void> }> {
  const log = (line: string) => console.log(`   ${line}`);
  if (kind === "postgres") {
    if (importFrom) throw new Error("--graph-import is for --graph neo4j");
    const pg = await startPostgres({ log });
    return { env: { DATABASE_URL: pg.url }, stop: () => pg.stop() };
  }
  const neo = await startNeo4j({ log, heap: process.env.BENCH_NEO4J_HEAP ?? "2g", importFrom });
  return {
    env: { NEO4J_URI: neo.uri, NEO4J_USER: neo.user, NEO4J_PASSWORD: neo.password },
    stop: () => neo.stop(),
  };
}

/**
 * Neo4j is seeded after the hub listens (decision 0019), its graph calls answering 503 meanwhile: waits
 * until a signed-in graph read answers
 */
export async function graphReady(url: string, cookie: () => Promise<string>, maxMs = 3 * 3_600_000) {
  const until = Date.now() + maxMs;
  for (;;) {
    try {
      const g = await fetch(`${url}/api/graph?layer=l5&limit=1`, {
        headers: { cookie: await cookie(), accept: "application/json" },
      });
      if (g.status === 200) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error("the graph did not become ready");
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

export interface FirstRead {
  name: string;
  path: string;
  /** milliseconds of each first read, one per write */
  ms: number[];
}

/**
 * For each read: `times` rounds of one write (a dataset published by the admin) and then the read's
 * first answer, timed; the caches kept per graph version are cold after the write.
 */
export async function firstReadsAfterWrite(url: string, cookie: string, times = 5): Promise<FirstRead[]> {
  const out: FirstRead[] = [];
  const stamp = Date.now().toString(36);
  let n = 0;
  for (const read of FIRST_READS) {
    const ms: number[] = [];
    for (let i = 0; i < times; i++) {
      await askApi(url, "/api/catalog", {
        method: "POST",
        body: JSON.stringify({ id: `bench-first-read-${stamp}-${++n}`, title: "First read after a write" }),
        cookie,
      });
      const t0 = performance.now();
      const res = await fetch(url + read.path, { headers: { cookie, accept: "application/json" } });
      await res.arrayBuffer();
      ms.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`bench: ${read.path} answered ${res.status} after a write`);
    }
    out.push({ ...read, ms });
  }
  return out;
}
