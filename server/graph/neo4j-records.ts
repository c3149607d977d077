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
  "CREATE CONSTRAINT graph_edge_count_pair IF NOT EXISTS FOR (c:GraphEdgeCount) REQUIRE c.pair IS UNIQUE",
];

/**
 * The relationships per pair of layers (`l2:l3`: from an l2 node to an l3 node), kept in the graph by
 * every write in its own transaction, as `graph_counts` is in PostgreSQL (decision 0078): the totals
 * among fewer layers than all are read from them, never counted by a walk. `pairOf(a, b)` is the key of a
 * relationship from `a` to `b`; `EDGE_COUNT_ADD` adds `k` to the pair `pair` (both in scope).
 */
export const pairOf = (a: string, b: string) => `coalesce(${a}.layer, '') + ':' + coalesce(${b}.layer, '')`;
export const EDGE_COUNT_ADD =
  "MERGE (c:GraphEdgeCount {pair: pair}) ON CREATE SET c.n = k ON MATCH SET c.n = c.n + k";
/** the kept counts, every pair */
export const EDGE_COUNTS_READ = "MATCH (c:GraphEdgeCount) RETURN c.pair AS pair, c.n AS n";
/**
 * A graph whose relationships were made without the kept counts (loaded by neo4j-admin or by hand, or by
 * a hub before decision 0078) is counted once, at start-up, in one transaction: the marker `*` first (a
 * MERGE on the unique pair: a second instance starting at once waits for it, then finds it), then every
 * pair set to the walk of every relationship. A graph that has the marker is not counted again.
 */
export const EDGE_COUNTS_INIT = {
  marker:
    "MERGE (s:GraphEdgeCount {pair: '*'}) ON CREATE SET s.n = 0, s.fresh = true ON MATCH SET s.fresh = false RETURN s.fresh AS fresh",
  zero: "MATCH (c:GraphEdgeCount) WHERE c.pair <> '*' SET c.n = 0",
  walk: `MATCH (a:GraphNode)-[e]->(b:GraphNode) WITH ${pairOf("a", "b")} AS pair, count(e) AS k ${EDGE_COUNT_ADD}`,
};

/** the highest `seq` of every node: per layer, the last entry of the (layer, seq) index (decision 0078) */
export const lastSeqStatement = `UNWIND $layers AS l CALL { WITH l MATCH (n:GraphNode) WHERE n.layer = l AND n.seq IS NOT NULL RETURN n.seq AS s ORDER BY n.layer DESC, n.seq DESC LIMIT 1 } RETURN coalesce(max(s), 0) AS s`;

/**
 * The edges among a set of nodes bounded by the set's size, as PostgreSQL's edgesAmong reads them
 * (postgres-store.ts, decision 0062), from the degrees Neo4j keeps. The pairs of two nodes of high degree
 * are read by one statement of a fixed text per relationship type (`denseEdgesStatement`, decision
 * 0080): an expand-into from the end with fewer relationships of that type. `USING INDEX SEEK` keeps the
 * planner from scanning the id index (a plain `USING INDEX` does now and then).
 */
export const EDGE_DEGREE_CAP = 128;
export const DEGREES_STATEMENT =
  "UNWIND $ids AS id MATCH (n:GraphNode {id: id}) USING INDEX SEEK n:GraphNode(id) RETURN id, COUNT { (n)-->() } AS outs, COUNT { (n)<--() } AS ins";
export const EDGES_AMONG_STATEMENT = `CALL {
    UNWIND $lowOut AS x MATCH (a:GraphNode {id: x}) USING INDEX SEEK a:GraphNode(id)
    MATCH (a)-[e]->(b) WHERE b.id IN $ids RETURN e, a, b
  UNION ALL
    UNWIND $lowIn AS y MATCH (b:GraphNode {id: y}) USING INDEX SEEK b:GraphNode(id)
    MATCH (a)-[e]->(b) WHERE a.id IN $highOut RETURN e, a, b
  }
  RETURN e.id AS id, a.id AS source, b.id AS target, type(e) AS type`;
export const denseEdgesStatement = (type: string) => `
  UNWIND $highOut AS x MATCH (a:GraphNode {id: x}) USING INDEX SEEK a:GraphNode(id)
  WITH a WHERE COUNT { (a)-[:${safeType(type)}]->() } > 0 WITH collect(a) AS froms WHERE size(froms) > 0
  UNWIND $highIn AS y MATCH (b:GraphNode {id: y}) USING INDEX SEEK b:GraphNode(id)
  WITH froms, b WHERE COUNT { (b)<-[:${type}]-() } > 0 WITH froms, collect(b) AS tos
  UNWIND froms AS a UNWIND tos AS b MATCH (a)-[e:${type}]->(b)
  RETURN e.id AS id, a.id AS source, b.id AS target, type(e) AS type`;

/**
 * The first `$q` nodes of layer `$layer` in sampling order: a seek of the (layer, seq) index in its own
 * order, which `{layer: $layer} … ORDER BY n.seq` is not (decision 0062)
 */
export const layerSampleStatement = (returns: string) =>
  `MATCH (n:GraphNode) WHERE n.layer = $layer AND n.seq IS NOT NULL RETURN ${returns} ORDER BY n.layer, n.seq LIMIT $q`;

/** write marks older than an hour are of no use to a retry: removed now and then */
export const WRITE_MARKS_PRUNE =
  "MATCH (w:GraphWrite) WHERE w.at < datetime() - duration('PT1H') WITH w LIMIT 10000 DELETE w";

/** the index on the `id` of one relationship type (deleteEdge's lookup) */
export const edgeIndexName = (type: string) => `graph_edge_id_${type.toLowerCase()}`;

/**
 * the index on the `seq` of one kind's label (findNodes' keyset pages seek it; decision 0090): the label
 * as it is, since lower-casing two PascalCase labels could give one name
 */
export const labelIndexName = (label: string) => `graph_node_seq_${safeLabel(label)}`;

/**
 * deletes the relationship `$id` (one index seek per relationship type, never a scan of them all) and
 * takes it off the kept count of its pair of layers
 */
export const deleteEdgeStatement = (types: readonly string[]) =>
  `CALL { ${types.map((t) => `MATCH ()-[e:${safeType(t)} {id: $id}]->() RETURN e`).join(" UNION ALL ")} }
   WITH e, ${pairOf("startNode(e)", "endNode(e)")} AS pair, -1 AS k DELETE e ${EDGE_COUNT_ADD}`;

/** the nodes of every kind in one row (a column per label), each from Neo4j's count store (decision 0080) */
export const labelCountsStatement = (labels: readonly string[]) =>
  `RETURN ${labels.map((l) => `COUNT { (:${safeLabel(l)}) } AS ${l}`).join(", ")}`;

/** the bulk load's deadline per batch: seeding is start-up work, not a request */
export const bulkTimeout = (timeoutMs: number) => Math.max(60_000, 12 * timeoutMs);

/**
 * The start-up's deadline for building the schema over a graph already there: a graph imported by
 * neo4j-admin has none, and building it takes tens of seconds (decision 0068)
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

export function nodeFrom(rec: {
  id: string;
  label: string;
  layer: string;
  props: Record<string, unknown>;
}): GraphNode {
  // the driver answers JS numbers (disableLosslessIntegers in neo4j-store.ts)
  const { id: _id, layer: _layer, seq: _seq, ...properties } = rec.props;
  return { id: rec.id, label: rec.label, layer: rec.layer as Layer, properties: properties as Properties };
}
