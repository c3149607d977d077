import type { Config } from "../config";
import { seedStore } from "./synthetic/seed";
import { createProgressBar } from "./synthetic/progress";
import type { GraphStore } from "./store";

/** Seeds the deterministic synthetic population into an empty store (SEED_PATIENTS patients). */
export async function seedIfEmpty(
  services: { graph: GraphStore; config: Pick<Config, "seedPatients"> },
  opts: { progress: boolean },
): Promise<void> {
  if ((await services.graph.countNodes()) > 0) return;
  const total = services.config.seedPatients;
  const bar = opts.progress ? createProgressBar({ label: "Seeding synthetic patients", total }) : undefined;
  const result = await seedStore(services.graph, {
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
