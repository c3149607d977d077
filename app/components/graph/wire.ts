import type { Layer } from "../../types";
import type { VGraph } from "./types";

/**
 * The explorer's graph as the page carries it: one JSON string of tuples (node: id, label, layer,
 * caption; relationship: id, source, target, type) instead of a thousand objects. Remix's
 * single-fetch serialiser (turbo-stream) and the HTML escaping of its inline script cost most of the
 * page's render time when they walk every node; a string they pass through whole, and the loader
 * encodes it once per graph version (app/routes/graph._index/graph-wire.server.ts).
 */

type NodeTuple = [id: string, label: string, layer: Layer, caption: string];
type EdgeTuple = [id: string, source: string, target: string, type: string];

export function encodeGraph(g: VGraph): string {
  const n: NodeTuple[] = g.nodes.map((x) => [x.id, x.label, x.layer, x.caption]);
  const e: EdgeTuple[] = g.edges.map((x) => [x.id, x.source, x.target, x.type]);
  return JSON.stringify({ n, e });
}

let last: { wire: string; graph: VGraph } | null = null;

/** The graph of `wire`; the same objects again for the same string (the server renders one cached string). */
export function decodeGraph(wire: string): VGraph {
  if (last?.wire === wire) return last.graph;
  const { n, e } = JSON.parse(wire) as { n: NodeTuple[]; e: EdgeTuple[] };
  const graph: VGraph = {
    nodes: n.map(([id, label, layer, caption]) => ({ id, label, layer, caption })),
    edges: e.map(([id, source, target, type]) => ({ id, source, target, type })),
  };
  last = { wire, graph };
  return graph;
}
