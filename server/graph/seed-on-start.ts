import type { Config } from "../config";
import { seedStore } from "./synthetic/seed";
import { createProgressBar } from "./synthetic/progress";
import type { GraphCalls, GraphStore } from "./store";

/**
 * Seeds the deterministic synthetic population into an empty store (SEED_PATIENTS patients).
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
  if ((await graph.countNodes()) > 0) return;
  const bar = opts.progress ? createProgressBar({ label: "Seeding synthetic patients", total }) : undefined;
  const result = await seedStore(graph, {
    patients: total,
    // the marketplace's permits and applications are dated from the day of seeding (Berlin)
    marketplaceDay: new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date()),
    onProgress: bar ? (done) => bar.update(done) : undefined,
  });
  bar?.finish();
  if (opts.progress) {
    console.log(
      `Seeded ${total} patients: ${result.nodes} nodes, ${result.edges} relationships in ${(result.ms / 1000).toFixed(1)} s`,
    );
  }
}
