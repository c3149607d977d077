import { sql, type RawBuilder } from "kysely";
import type {
  GraphEdge,
  GraphNode,
  Layer,
  NodeRecord,
  Properties,
  PropertyValue,
  Relationship,
} from "./model";
import { countIn, expandFrom, LAYERS, layerOfLabel, safeKey, sampleAnswer } from "./model";
import { allocateQuota } from "./quota";
import { relationshipsOf, type GraphCounts, type GraphStore } from "./store";

/**
 * What the two SQL graph stores share (the embedded SQLite store, sqlite-store.ts, and the PostgreSQL
 * store, postgres-store.ts): one table of nodes and one of edges, their rows, and every read (sampling,
 * breadth-first expansion, finding, counting) built on a handful of queries each store writes in its
 * own dialect.
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
type RelationshipRow = NodeRow & { eid: string; etype: string };

/** a node as stored: its layer follows from its label when the label has one */
export const nodeRowOf = (n: NodeRecord) => ({
  id: n.id,
  label: n.label,
  layer: layerOfLabel(n.label) ?? n.layer,
  props: JSON.stringify(n.properties ?? {}),
});

/** what each SQL store writes in its own dialect; the calls built on it are those of sqlGraphReads */
export interface SqlGraphDialect {
  /** runs a read outside any transaction */
  all<R>(query: RawBuilder<R>): Promise<R[]>;
  /**
   * the nodes per layer (`node:<layer>`) and the edges per pair of their ends' layers (`edge:<a>:<b>`),
   * read once per graph version
   */
  keptCounts(): Promise<Map<string, number>>;
  /**
   * at most `n` nodes joined by an edge (either direction) to a node of `frontier` and not in `seen`,
   * the first by id: the expansion's next hop, bounded in the query (LIMIT) so that a concept with many
   * neighbours reads `n` node rows, not all its edges
   */
  newNeighbours(frontier: string[], seen: string[], n: number): Promise<GraphNode[]>;
  /** the edges whose both ends are in `ids` (never empty) */
  edgesAmong(ids: string[]): Promise<GraphEdge[]>;
  /** the test that a node's property `key` (a safeKey) equals `value`, as the dialect stores JSON */
  propEquals(key: string, value: PropertyValue): RawBuilder<unknown>;
  /** the distinct property keys of the first 200 nodes of `label` */
  propertyKeys(label: string): RawBuilder<{ k: string }>;
}

/** the reads of a SQL graph store, one implementation over both dialects */
export function sqlGraphReads(d: SqlGraphDialect) {
  const { all } = d;
  const edgesAmong = async (ids: string[]) => (ids.length ? d.edgesAmong(ids) : []);
  const layerCounts = async (): Promise<Record<string, number>> => {
    const kept = await d.keptCounts();
    return Object.fromEntries(LAYERS.map((l) => [l, kept.get(`node:${l}`) ?? 0]));
  };
  const getNode = async (id: string) => {
    const [r] = await all(sql<NodeRow>`SELECT id, label, layer, props FROM graph_nodes WHERE id = ${id}`);
    return r ? toNode(r) : null;
  };
  const countOf = async (query: RawBuilder<unknown>) =>
    Number((await all(query as RawBuilder<{ n: number }>))[0]!.n);
  const where = (filters: Properties | undefined) => {
    const parts = Object.entries(filters ?? {}).map(([k, v]) => sql`AND ${d.propEquals(safeKey(k), v)}`);
    return parts.length ? sql.join(parts, sql` `) : sql``;
  };
  return {
    countNodes: async (layers) => countIn(await layerCounts(), layers),
    /** the first `limit` nodes of `layers`, spread across them by quota, and the edges among them */
    async sampleGraph(layers, limit, layerLabel) {
      const counts = await layerCounts();
      const quota = allocateQuota(layers, counts, limit);
      const nodes: GraphNode[] = [];
      for (const l of layers) {
        const n = quota.get(l) ?? 0;
        if (n > 0)
          for (const r of await all(
            sql<NodeRow>`SELECT id, label, layer, props FROM graph_nodes WHERE layer = ${l} ORDER BY seq LIMIT ${n}`,
          ))
            nodes.push(toNode(r));
      }
      const edges = await edgesAmong(nodes.map((n) => n.id));
      const kept = await d.keptCounts();
      let totalEdges = 0;
      for (const a of layers) for (const b of layers) totalEdges += kept.get(`edge:${a}:${b}`) ?? 0;
      return sampleAnswer(nodes, edges, { layer: layerLabel, layers, counts, totalEdges, limit });
    },
    async expand(id, depth, limit) {
      const start = await getNode(id);
      return start ? expandFrom(start, depth, limit, d.newNeighbours, edgesAmong) : null;
    },
    getNode,
    async relationships(q) {
      const types = q.types?.length ? sql`AND e.type IN (${sql.join(q.types)})` : sql``;
      return relationshipsOf(q, async (direction, n) => {
        const [mine, other] = direction === "out" ? ["source", "target"] : ["target", "source"];
        const rows = await all(
          sql<RelationshipRow>`SELECT e.id AS eid, e.type AS etype, n.id, n.label, n.layer, n.props
                FROM graph_edges e JOIN graph_nodes n ON n.id = e.${sql.ref(other)}
               WHERE e.${sql.ref(mine)} = ${q.id} ${types} ORDER BY e.seq LIMIT ${n}`,
        );
        return rows.map((r): Relationship => ({ id: r.eid, type: r.etype, direction, node: toNode(r) }));
      });
    },
    async findNodes(q) {
      const rows = await all(
        sql<NodeRow>`SELECT id, label, layer, props FROM graph_nodes WHERE label = ${q.label} ${where(q.where)}
             ${q.after === undefined ? sql`` : sql`AND seq > (SELECT seq FROM graph_nodes WHERE id = ${q.after})`}
             ORDER BY seq LIMIT ${q.limit ?? 1000} OFFSET ${q.offset ?? 0}`,
      );
      return rows.map(toNode);
    },
    countWhere: (label, filters) =>
      countOf(sql`SELECT COUNT(*) AS n FROM graph_nodes WHERE label = ${label} ${where(filters)}`),
    async counts(): Promise<GraphCounts> {
      const tally = async (query: RawBuilder<{ k: string; n: number }>) =>
        Object.fromEntries((await all(query)).map((r) => [r.k, Number(r.n)]));
      const nodesByLabel = await tally(sql`SELECT label AS k, COUNT(*) AS n FROM graph_nodes GROUP BY label`);
      const edgesByType = await tally(sql`SELECT type AS k, COUNT(*) AS n FROM graph_edges GROUP BY type`);
      const propertyKeysByLabel: Record<string, string[]> = {};
      for (const label of Object.keys(nodesByLabel))
        propertyKeysByLabel[label] = (await all(d.propertyKeys(label))).map((r) => r.k).sort();
      const danglingEdges = await countOf(
        sql`SELECT COUNT(*) AS n FROM graph_edges WHERE source_layer IS NULL OR target_layer IS NULL`,
      );
      return {
        nodesByLabel,
        edgesByType,
        propertyKeysByLabel,
        danglingEdges,
        duplicateIds: 0,
      };
    },
  } satisfies Partial<GraphStore>;
}
