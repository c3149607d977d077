import neo4j from "neo4j-driver";
import { PASCAL_CASE, UPPER_SNAKE_CASE, type GraphNode, type Layer, type Properties } from "./model";

/** What the Neo4j adapter (neo4j-store.ts) reads and writes: checked names, plain values, nodes. */

/**
 * The schema every query relies on (the exports of scripts/seed-export.ts create the same): every node
 * carries `:GraphNode` with a unique `id`, and `layer` and `seq` (its place in sampling order) indexed;
 * a `:GraphWrite` mark per write lets a retried transaction see that its first run committed.
 */
export const SCHEMA = [
  "CREATE CONSTRAINT graph_node_id IF NOT EXISTS FOR (n:GraphNode) REQUIRE n.id IS UNIQUE",
  "CREATE INDEX graph_node_layer IF NOT EXISTS FOR (n:GraphNode) ON (n.layer, n.seq)",
  "CREATE CONSTRAINT graph_write_id IF NOT EXISTS FOR (w:GraphWrite) REQUIRE w.id IS UNIQUE",
];

/**
 * The first `$q` nodes of layer `$layer` in sampling order (NODE_RETURN's columns): a seek of `$q` entries of
 * the (layer, seq) index in its own order. Written as `MATCH (n:GraphNode {layer: $layer}) … ORDER BY
 * n.seq`, Neo4j 5.26 scanned every :GraphNode and sorted (at 10,000 patients 490,000 db hits, 0.4–1.0 s
 * per layer; this: 401).
 */
export const layerSampleStatement = (returns: string) =>
  `MATCH (n:GraphNode) WHERE n.layer = $layer AND n.seq IS NOT NULL RETURN ${returns} ORDER BY n.layer, n.seq LIMIT $q`;

/** write marks older than an hour are of no use to a retry: removed now and then */
export const WRITE_MARKS_PRUNE =
  "MATCH (w:GraphWrite) WHERE w.at < datetime() - duration('PT1H') WITH w LIMIT 10000 DELETE w";

/** the index on the `id` of one relationship type (deleteEdge's lookup) */
export const edgeIndexName = (type: string) => `graph_edge_id_${type.toLowerCase()}`;

/** deletes the relationship `$id`: one index seek per relationship type, never a scan of them all */
export const deleteEdgeStatement = (types: readonly string[]) =>
  `CALL { ${types.map((t) => `MATCH ()-[e:${safeType(t)} {id: $id}]->() RETURN e`).join(" UNION ALL ")} } DELETE e`;

/** the bulk load's deadline per batch: seeding is start-up work, not a request */
export const bulkTimeout = (timeoutMs: number) => Math.max(60_000, 12 * timeoutMs);

/**
 * The start-up's deadline for building the schema over a graph already there: a graph imported by
 * neo4j-admin (100,000 patients, 2.4 million nodes) has none, and the constraint on :GraphNode(id) took
 * 27 s and the (layer, seq) index 32 s at a load average of 14 (decision 0068)
 */
export const schemaTimeout = (timeoutMs: number) => Math.max(600_000, 120 * timeoutMs);

export const safeLabel = (l: string) => {
  if (!PASCAL_CASE.test(l)) throw new Error(`unsafe label ${l}`);
  return l;
};
export const safeType = (t: string) => {
  if (!UPPER_SNAKE_CASE.test(t)) throw new Error(`unsafe relationship type ${t}`);
  return t;
};
export const SAFE_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

export function toPlain(v: unknown): unknown {
  if (neo4j.isInt(v)) return (v as { toNumber(): number }).toNumber();
  if (Array.isArray(v)) return v.map(toPlain);
  return v;
}

export function nodeFrom(rec: {
  id: string;
  label: string;
  layer: string;
  props: Record<string, unknown>;
}): GraphNode {
  const properties: Properties = {};
  for (const [k, v] of Object.entries(rec.props)) {
    if (k === "id" || k === "layer" || k === "seq") continue;
    properties[k] = toPlain(v) as Properties[string];
  }
  return { id: rec.id, label: rec.label, layer: rec.layer as Layer, properties };
}
