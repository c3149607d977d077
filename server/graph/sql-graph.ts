import type {
  GraphEdge,
  GraphNode,
  GraphResponse,
  Layer,
  NodeRecord,
  Properties,
  Relationship,
} from "./model";
import { layerOfLabel, sampleAnswer } from "./model";
import { allocateQuota } from "./quota";

/**
 * What the two SQL graph stores share (the embedded SQLite store, sqlite-store.ts, and the PostgreSQL
 * store, postgres-store.ts): one table of nodes and one of edges, their rows, and the sampling and
 * breadth-first expansion built on a handful of queries each store writes in its own dialect.
 */

export interface NodeRow {
  id: string;
  label: string;
  layer: Layer;
  /** JSON text (SQLite) or the parsed value (PostgreSQL jsonb) */
  props: string | Properties;
}
export interface EdgeRow {
  id: string;
  source: string;
  target: string;
  type: string;
}

export const toNode = (r: NodeRow): GraphNode => ({
  id: r.id,
  label: r.label,
  layer: r.layer,
  properties: typeof r.props === "string" ? JSON.parse(r.props) : r.props,
});
export const toEdge = (r: EdgeRow): GraphEdge => ({
  id: r.id,
  source: r.source,
  target: r.target,
  type: r.type,
});

/** a relationship as read: its edge's id and type beside the node at its other end */
export type RelationshipRow = NodeRow & { eid: string; etype: string };
export const toRelationship =
  (direction: "out" | "in") =>
  (r: RelationshipRow): Relationship => ({ id: r.eid, type: r.etype, direction, node: toNode(r) });

/** a node as stored: its layer follows from its label when the label has one */
export const nodeRowOf = (n: NodeRecord) => ({
  id: n.id,
  label: n.label,
  layer: layerOfLabel(n.label) ?? n.layer,
  props: JSON.stringify(n.properties ?? {}),
});

/** the queries sampleGraph and expand are built on, in the store's dialect */
export interface SqlGraphReads {
  /** the first `n` nodes of a layer, in insertion order */
  nodesOfLayer(layer: Layer, n: number): Promise<NodeRow[]>;
  /**
   * at most `n` nodes joined by an edge (either direction) to a node of `frontier` and not in `seen`,
   * the first by id: the expansion's next hop, bounded in the query (LIMIT) as Neo4j's is, so a concept
   * with tens of thousands of neighbours sends `n` rows, not all its edges, and reads `n` node rows (the
   * ids come from the edge indexes alone)
   */
  newNeighbours(frontier: string[], seen: string[], n: number): Promise<GraphNode[]>;
  /** the edges whose both ends are in `ids` */
  edgesAmong(ids: string[]): Promise<GraphEdge[]>;
  /** how many edges join nodes of `layers` */
  edgeCountWithin(layers: readonly Layer[]): Promise<number>;
}

/** the first `limit` nodes of `layers`, spread across them by quota, and the edges among them */
export async function sampleFrom(
  q: SqlGraphReads,
  counts: Record<string, number>,
  layers: readonly Layer[],
  limit: number,
  layerLabel: string,
): Promise<GraphResponse> {
  const quota = allocateQuota(
    layers.map((l) => ({ key: l, available: counts[l] ?? 0 })),
    limit,
  );
  const nodes: GraphNode[] = [];
  for (const l of layers) {
    const n = quota.get(l) ?? 0;
    if (n > 0) for (const r of await q.nodesOfLayer(l, n)) nodes.push(toNode(r));
  }
  const edges = await q.edgesAmong(nodes.map((n) => n.id));
  const totalEdges = await q.edgeCountWithin(layers);
  return sampleAnswer(nodes, edges, { layer: layerLabel, layers, counts, totalEdges, limit });
}
