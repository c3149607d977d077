import type { Layer } from "../../types";
import type { VGraph, VNode } from "../../components/graph/types";
import { ALL_LAYERS } from "../../components/graph/types";

/** how many nodes of each layer the explorer's first view shows, each with its label */
export const OVERVIEW_PER_LAYER = 8;

/**
 * The graph explorer's first view (issue 40): from the scope's sampled graph, the best-connected nodes of
 * each layer (at most `perLayer`; nodes that read the same as one already chosen, caption and kind, are
 * skipped, so each label says something new) and the relationships among them. Small enough to label
 * every node and to lay out in a few frames; a layer is then expanded into its own drawing.
 * Deterministic: ties go to the caption, then the id.
 */
export function overviewOf(g: VGraph, perLayer = OVERVIEW_PER_LAYER): VGraph {
  const degree = new Map<string, number>();
  for (const e of g.edges) {
    degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
    degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
  }
  const byLayer = new Map<Layer, VNode[]>(ALL_LAYERS.map((l) => [l, []]));
  for (const n of g.nodes) byLayer.get(n.layer)?.push(n);
  const chosen = new Set<string>();
  const nodes: VNode[] = [];
  for (const layer of ALL_LAYERS) {
    const ranked = byLayer
      .get(layer)!
      .sort(
        (a, b) =>
          (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) ||
          a.caption.localeCompare(b.caption) ||
          a.id.localeCompare(b.id),
      );
    // one node per reading (caption and kind): as many taken as there are readings
    const reads = new Set<string>();
    for (const n of ranked) {
      if (reads.size >= perLayer) break;
      const key = `${n.label}\u0000${n.caption}`;
      if (reads.has(key)) continue;
      reads.add(key);
      chosen.add(n.id);
      nodes.push(n);
    }
  }
  return { nodes, edges: g.edges.filter((e) => chosen.has(e.source) && chosen.has(e.target)) };
}
