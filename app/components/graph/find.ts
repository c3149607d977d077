import type { VNode } from "./types";

/** one line of the graph's "Find node" list: a node, and how many more look the same */
export interface FindMatch {
  node: VNode;
  /** nodes of the same caption and kind drawn besides this one (0: it is unique) */
  alike: number;
}

/**
 * The nodes of the drawing whose caption or id contains `query` (or whose kind is it), at most `max`
 * lines, one line per caption and kind: nodes that would read the same (e.g. one "Type 2 diabetes
 * mellitus" condition per patient) are one line that opens the first of them and says how many there are.
 * A node found by its id only keeps a line of its own: the id is what tells it apart.
 */
export function findMatches(nodes: readonly VNode[], query: string, max: number): FindMatch[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const lines = new Map<string, FindMatch>();
  for (const n of nodes) {
    const byCaption = n.caption.toLowerCase().includes(q) || n.label.toLowerCase() === q;
    if (!byCaption && !n.id.toLowerCase().includes(q)) continue;
    // found by its id: a line of its own (the id tells it apart); found by what it reads: one line per reading
    const key = byCaption ? `${n.label}\u0000${n.caption}` : `\u0001${n.id}`;
    const line = lines.get(key);
    if (line) line.alike++;
    else if (lines.size < max) lines.set(key, { node: n, alike: 0 });
  }
  return [...lines.values()];
}
