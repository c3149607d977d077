import type { Layer } from "../../types";
import type { VEdge, VGraph, VNode } from "./types";

/**
 * The explorer's graph as the page carries it: one JSON string, not a thousand objects. Remix's
 * single-fetch serialiser (turbo-stream) and the HTML escaping of its inline script cost most of the
 * page's render time, and that cost is proportional to the inline bytes (each `"` of the string
 * becomes `\\\"` in the page). So the string is small: labels (with their layer) and relationship
 * types are named once in tables; a node is its id, its label's index and its caption (0 when the
 * caption is the id); a relationship is the indexes of its ends in the node list and its type's
 * index, with its id only where it is not `<source>:<type>:<target>` (the generator's ids). An end
 * that is not in the node list is carried as its id. The loader encodes it once per graph version
 * (app/routes/graph._index/graph-wire.server.ts); the browser decodes it once.
 */

interface Wire {
  /** [label, layer] */
  l: [string, Layer][];
  /** relationship types */
  t: string[];
  /** flat: id, label index, caption (0: the id) */
  n: (string | number)[];
  /** flat: source, target (node index, or the id of a node not in the list), type index */
  e: (string | number)[];
  /** ids of the relationships that do not follow `<source>:<type>:<target>`: relationship index, id */
  x: (string | number)[];
}

function indexer<K>() {
  const index = new Map<K, number>();
  const list: K[] = [];
  return {
    list,
    of(key: K): number {
      let i = index.get(key);
      if (i === undefined) {
        i = list.length;
        index.set(key, i);
        list.push(key);
      }
      return i;
    },
  };
}

export function encodeGraph(g: VGraph): string {
  const labels = indexer<string>();
  const layers: Layer[] = [];
  const types = indexer<string>();
  const nodeIndex = new Map<string, number>();
  const n: (string | number)[] = [];
  g.nodes.forEach((x, i) => {
    if (!nodeIndex.has(x.id)) nodeIndex.set(x.id, i);
    const li = labels.of(`${x.layer}\u0000${x.label}`);
    layers[li] = x.layer;
    n.push(x.id, li, x.caption === x.id ? 0 : x.caption);
  });
  const e: (string | number)[] = [];
  const x: (string | number)[] = [];
  g.edges.forEach((r, i) => {
    e.push(nodeIndex.get(r.source) ?? r.source, nodeIndex.get(r.target) ?? r.target, types.of(r.type));
    if (r.id !== `${r.source}:${r.type}:${r.target}`) x.push(i, r.id);
  });
  const wire: Wire = {
    l: labels.list.map((k, i) => [k.slice(k.indexOf("\u0000") + 1), layers[i]]),
    t: types.list,
    n,
    e,
    x,
  };
  return JSON.stringify(wire);
}

let last: { wire: string; graph: VGraph } | null = null;

/** The graph of `wire`; the same objects again for the same string (the server renders one cached string). */
export function decodeGraph(wire: string): VGraph {
  if (last?.wire === wire) return last.graph;
  const { l, t, n, e, x } = JSON.parse(wire) as Wire;
  const nodes: VNode[] = [];
  for (let i = 0; i < n.length; i += 3) {
    const id = n[i] as string;
    const [label, layer] = l[n[i + 1] as number];
    const caption = n[i + 2];
    nodes.push({ id, label, layer, caption: caption === 0 ? id : (caption as string) });
  }
  const end = (v: string | number) => (typeof v === "number" ? nodes[v].id : v);
  const edges: VEdge[] = [];
  for (let i = 0; i < e.length; i += 3) {
    const source = end(e[i]);
    const target = end(e[i + 1]);
    const type = t[e[i + 2] as number];
    edges.push({ id: `${source}:${type}:${target}`, source, target, type });
  }
  for (let i = 0; i < x.length; i += 2) edges[x[i] as number].id = x[i + 1] as string;
  const graph: VGraph = { nodes, edges };
  last = { wire, graph };
  return graph;
}
