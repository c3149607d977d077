/**
 * Seeds a graph store with the synthetic population, batch by batch.
 */
import { type GraphCalls } from "../store";
import { generateGraph } from "./generate";

export interface SeedOptions {
  patients: number;
  seed?: number;
  /** see GenerateOptions.marketplaceDay */
  marketplaceDay?: string;
  /** see GenerateOptions.resumeAfter */
  resumeAfter?: number;
  onProgress?: (done: number, total: number) => void;
}

export async function seedStore(
  store: Pick<GraphCalls, "importBatch">,
  opts: SeedOptions,
): Promise<{ nodes: number; edges: number; ms: number }> {
  const started = performance.now();
  let nodes = 0;
  let edges = 0;
  for (const batch of generateGraph({
    patients: opts.patients,
    seed: opts.seed,
    marketplaceDay: opts.marketplaceDay,
    resumeAfter: opts.resumeAfter,
  })) {
    await store.importBatch(batch.nodes, batch.edges);
    nodes += batch.nodes.length;
    edges += batch.edges.length;
    opts.onProgress?.(batch.patientsDone, opts.patients);
  }
  return { nodes, edges, ms: Math.round(performance.now() - started) };
}
