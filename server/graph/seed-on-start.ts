import type { Config } from "../config";
import { seedStore } from "./synthetic/seed";
import { createProgressBar } from "./synthetic/progress";
import type { GraphCalls, GraphStore } from "./store";

/**
 * Seeds the deterministic synthetic population into an empty store (SEED_PATIENTS patients), and
 * completes an interrupted seed: each batch is one transaction and batches are stored in patient
 * order, so a store holding some patients but fewer than SEED_PATIENTS resumes after the last one (a
 * graph without patients that is not empty, e.g. one loaded by hand, is left alone).
 * The embedded store is seeded before the server listens; a store that starts in the background
 * (Neo4j) seeds once it is reachable, and this returns at once (decision 0019).
 */
export async function seedIfEmpty(
  services: { graph: GraphStore; config: Pick<Config, "seedPatients"> },
  opts: { progress: boolean },
): Promise<void> {
  const work = (graph: GraphCalls) => seedEmpty(graph, services.config.seedPatients, opts);
  if (services.graph.whenReachable) services.graph.whenReachable(work);
  else await work(services.graph);
}

async function seedEmpty(graph: GraphCalls, total: number, opts: { progress: boolean }): Promise<void> {
  let resumeAfter = 0;
  if ((await graph.countNodes()) > 0) {
    resumeAfter = await graph.countWhere("Patient");
    if (resumeAfter === 0 || resumeAfter >= total) return;
    if (opts.progress) console.log(`Resuming an interrupted seed after patient ${resumeAfter} of ${total}`);
  }
  const bar = opts.progress ? createProgressBar({ label: "Seeding synthetic patients", total }) : undefined;
  const seed = () =>
    seedStore(graph, {
      patients: total,
      resumeAfter,
      // the marketplace's permits and applications are dated from the day of seeding (Berlin)
      marketplaceDay: new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date()),
      onProgress: bar ? (done) => bar.update(done) : undefined,
    });
  // an empty graph is loaded in bulk where the store can (a resumed seed is not: the graph is in use)
  const result = resumeAfter === 0 && graph.bulkLoad ? await graph.bulkLoad(seed) : await seed();
  bar?.finish();
  if (opts.progress) {
    console.log(
      `Seeded ${total} patients: ${result.nodes} nodes, ${result.edges} relationships in ${(result.ms / 1000).toFixed(1)} s`,
    );
  }
}
