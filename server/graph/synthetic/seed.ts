/**
 * Seeds a graph store with the synthetic population, batch by batch.
 */
import { type GraphCalls } from "../store";
import { generateGraph, type GenerateOptions } from "./generate";

export async function seedStore(
  store: Pick<GraphCalls, "importBatch">,
  opts: Omit<GenerateOptions, "batchSize"> & { onProgress?: (done: number, total: number) => void },
): Promise<{ nodes: number; edges: number; ms: number }> {
  const started = performance.now();
  let nodes = 0;
  let edges = 0;
  for (const batch of generateGraph(opts)) {
    await store.importBatch(batch.nodes, batch.edges);
    nodes += batch.nodes.length;
    edges += batch.edges.length;
    opts.onProgress?.(batch.patientsDone, opts.patients);
  }
  return { nodes, edges, ms: Math.round(performance.now() - started) };
}
