import type { Layer } from "../../types";
import type { VEdge, VGraph, VNode } from "./types";

/**
 * The explorer's graph as the page carries it: one small string, not a thousand objects (the page's
 * serialising and escaping cost grows with its inline bytes), holding no `"` (four bytes each in the
 * page's inline script). Fields are separated by `|`, sections by `~`; `%`, `|` and `~` inside a field
 * are written `%25`, `%7C`, `%7E` (an empty field `%0`). The sections: labels with their layer, and
 * relationship types, named once; the nodes, each its id, its label's index and its caption (empty:
 * the caption is the id); the relationships, each the indexes of its ends in the node list (or `'`
 * and the id of an end not in the list) and its type's index; and the ids of the relationships that
 * do not follow `<source>:<type>:<target>` (the generator's ids), each its relationship's index and
 * its id. The loader encodes it once per graph version (app/routes/graph._index/graph-wire.server.ts);
 * the browser decodes it once.
 */

const FIELD = "|";
const SECTION = "~";
const EMPTY = "%0";
const ESCAPES: Record<string, string> = { "%": "%25", "|": "%7C", "~": "%7E" };
const UNESCAPES: Record<string, string> = { "%25": "%", "%7C": "|", "%7E": "~" };

const esc = (s: string) => (s === "" ? EMPTY : s.replace(/[%|~]/g, (c) => ESCAPES[c]));
const unesc = (f: string) => (f === EMPTY ? "" : f.replace(/%(?:25|7C|7E)/g, (e) => UNESCAPES[e]));
const fields = (section: string) => (section === "" ? [] : section.split(FIELD));

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
    n.push(esc(x.id), li, x.caption === x.id ? "" : esc(x.caption));
  });
  const end = (id: string) => nodeIndex.get(id) ?? `'${esc(id)}`;
  const e: (string | number)[] = [];
  const x: (string | number)[] = [];
  g.edges.forEach((r, i) => {
    e.push(end(r.source), end(r.target), types.of(r.type));
    if (r.id !== `${r.source}:${r.type}:${r.target}`) x.push(i, esc(r.id));
  });
  const l = labels.list.flatMap((k, i) => [esc(k.slice(k.indexOf("\u0000") + 1)), layers[i]]);
  return [l, types.list.map(esc), n, e, x].map((section) => section.join(FIELD)).join(SECTION);
}

let last: { wire: string; graph: VGraph } | null = null;

/** The graph of `wire`; the same objects again for the same string (the server renders one cached string). */
export function decodeGraph(wire: string): VGraph {
  if (last?.wire === wire) return last.graph;
  const [l, t, n, e, x] = wire.split(SECTION).map(fields);
  const nodes: VNode[] = [];
  for (let i = 0; i < n.length; i += 3) {
    const id = unesc(n[i]);
    const li = Number(n[i + 1]) * 2;
    const caption = n[i + 2];
    nodes.push({
      id,
      label: unesc(l[li]),
      layer: l[li + 1] as Layer,
      caption: caption === "" ? id : unesc(caption),
    });
  }
  const end = (v: string) => (v.startsWith("'") ? unesc(v.slice(1)) : nodes[Number(v)].id);
  const edges: VEdge[] = [];
  for (let i = 0; i < e.length; i += 3) {
    const source = end(e[i]);
    const target = end(e[i + 1]);
    const type = unesc(t[Number(e[i + 2])]);
    edges.push({ id: `${source}:${type}:${target}`, source, target, type });
  }
  for (let i = 0; i < x.length; i += 2) edges[Number(x[i])].id = unesc(x[i + 1]);
  const graph: VGraph = { nodes, edges };
  last = { wire, graph };
  return graph;
}
