import { sql, type RawBuilder } from "kysely";
import type { AuditLog } from "../audit/log";
import { ApiError } from "../http/errors";
import { migrate, type Db } from "../storage/database";
import { openSqliteRelational, withStatementCache } from "../storage/relational/sqlite";
import type { EdgeRecord, NodeRecord } from "./model";
import { perVersion, type GraphStore } from "./store";
import { nodeRowOf, sqlGraphReads, toEdge, toNode, type EdgeRow, type NodeRow } from "./sql-graph";

/**
 * The embedded graph store: nodes and edges in the app's SQLite file. Edges keep the layers of
 * their ends so per-layer edge counts need no join. Writes and their audit entry share one
 * transaction. Its reads are those of every SQL graph store (sql-graph.ts), run through Kysely over
 * the same handle.
 */

export function createSqliteGraphStore(db: Db, audit: AuditLog): GraphStore {
  migrate(db, "graph-1", [
    `CREATE TABLE graph_nodes (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      label TEXT NOT NULL,
      layer TEXT NOT NULL,
      props TEXT NOT NULL
    )`,
    "CREATE INDEX graph_nodes_layer ON graph_nodes(layer, seq)",
    "CREATE INDEX graph_nodes_label ON graph_nodes(label, seq)",
    `CREATE TABLE graph_edges (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      source TEXT NOT NULL,
      target TEXT NOT NULL,
      type TEXT NOT NULL,
      props TEXT,
      source_layer TEXT,
      target_layer TEXT
    )`,
    "CREATE INDEX graph_edges_source ON graph_edges(source, type)",
    "CREATE INDEX graph_edges_target ON graph_edges(target, type)",
    "CREATE INDEX graph_edges_layers ON graph_edges(source_layer, target_layer)",
  ]);
  // the source index carries the target: edgesAmong tests each outgoing edge's target from the index
  // alone instead of reading its row
  migrate(db, "graph-2-edges-source-target", [
    "DROP INDEX graph_edges_source",
    "CREATE INDEX graph_edges_source ON graph_edges(source, type, target)",
  ]);

  let version = 1;
  // the shared reads (sql-graph.ts) compiled by Kysely to SQLite's SQL, run at once on the handle, not
  // through Kysely's driver (its connection lock and turns cost more than the read)
  const kysely = openSqliteRelational(db).db;
  const statements = withStatementCache(db);
  const INSERT_NODE =
    "INSERT INTO graph_nodes (id, label, layer, props) VALUES (@id, @label, @layer, @props)";
  const insertNode = db.prepare(INSERT_NODE);
  const upsertNode = db.prepare(
    `${INSERT_NODE} ON CONFLICT(id) DO UPDATE SET label = excluded.label, layer = excluded.layer, props = excluded.props`,
  );
  const INSERT_EDGE = `INSERT INTO graph_edges (id, source, target, type, props, source_layer, target_layer)
     VALUES (@id, @source, @target, @type, @props,
       (SELECT layer FROM graph_nodes WHERE id = @source), (SELECT layer FROM graph_nodes WHERE id = @target))`;
  const insertEdge = db.prepare(INSERT_EDGE);
  const upsertEdge = db.prepare(
    `${INSERT_EDGE} ON CONFLICT(id) DO UPDATE SET source = excluded.source, target = excluded.target, type = excluded.type,
       props = excluded.props, source_layer = excluded.source_layer, target_layer = excluded.target_layer`,
  );
  const getNodeStmt = db.prepare("SELECT id, label, layer, props FROM graph_nodes WHERE id = ?");
  const deleteNodeStmt = db.prepare("DELETE FROM graph_nodes WHERE id = ?");
  const deleteEdgesOf = db.prepare("DELETE FROM graph_edges WHERE source = ? OR target = ?");
  const deleteEdgeStmt = db.prepare("DELETE FROM graph_edges WHERE id = ?");
  const updateProps = db.prepare("UPDATE graph_nodes SET props = ? WHERE id = ?");

  let pingStatement: ReturnType<Db["prepare"]> | undefined;
  /** the rows of a query written with Kysely's sql, run at once */
  const rows = <R>(query: RawBuilder<R>) => {
    const { sql: text, parameters } = query.compile(kysely);
    return statements.prepare(text).all(parameters) as R[];
  };

  /** an insert whose id is taken answers 409 "<what> already exists" */
  const once = (insert: () => unknown, what: string) => {
    try {
      insert();
    } catch (e) {
      if (String(e).includes("UNIQUE")) throw new ApiError(409, `${what} already exists`);
      throw e;
    }
  };
  const toEdgeRow = (e: EdgeRecord) => ({ ...e, props: e.properties ? JSON.stringify(e.properties) : null });

  const importTx = db.transaction((nodes: NodeRecord[], edges: EdgeRecord[]) => {
    for (const n of nodes) upsertNode.run(nodeRowOf(n));
    for (const e of edges) upsertEdge.run(toEdgeRow(e));
  });

  const reads = sqlGraphReads({
    all: async (query) => rows(query),
    keptCounts: perVersion(
      () => version,
      async () =>
        new Map(
          rows<{ key: string; n: number }>(
            sql`SELECT 'node:' || layer AS key, COUNT(*) AS n FROM graph_nodes GROUP BY layer
                UNION ALL SELECT 'edge:' || coalesce(source_layer, '') || ':' || coalesce(target_layer, ''), COUNT(*)
                  FROM graph_edges GROUP BY source_layer, target_layer`,
          ).map((r) => [r.key, r.n]),
        ),
    ),
    async newNeighbours(frontier, seen, n) {
      const [f, s] = [JSON.stringify(frontier), JSON.stringify(seen)];
      return rows<NodeRow>(
        sql`SELECT id, label, layer, props FROM graph_nodes WHERE id IN (
              SELECT other FROM (SELECT target AS other FROM graph_edges WHERE source IN (SELECT value FROM json_each(${f}))
                                 UNION SELECT source FROM graph_edges WHERE target IN (SELECT value FROM json_each(${f})))
               WHERE other NOT IN (SELECT value FROM json_each(${s})) ORDER BY other LIMIT ${n})
            ORDER BY id`,
      ).map(toNode);
    },
    /**
     * Per id in the set's order, its outgoing edges by type, then insertion, as one statement. The target
     * test runs inside SQLite against the set, on the source index (source, type, target) alone: only the
     * edges that stay (a small share of the outgoing ones) are read from the table.
     */
    async edgesAmong(ids) {
      const list = JSON.stringify(ids);
      return rows<EdgeRow>(
        sql`SELECT e.id, e.source, e.target, e.type FROM json_each(${list}) AS s
             JOIN graph_edges AS e INDEXED BY graph_edges_source ON e.source = s.value
             WHERE e.target IN (SELECT value FROM json_each(${list}))
             ORDER BY s.key, e.type, e.seq`,
      ).map(toEdge);
    },
    // SQLite's JSON has no booleans: json_extract gives 1 or 0
    propEquals: (key, v) =>
      sql`json_extract(props, ${sql.lit(`$.${key}`)}) = ${typeof v === "boolean" ? (v ? 1 : 0) : v}`,
    propertyKeys: (label) =>
      sql`SELECT DISTINCT j.key AS k FROM (SELECT props FROM graph_nodes WHERE label = ${label} ORDER BY seq LIMIT 200) s, json_each(s.props) j`,
  });

  const store: GraphStore = {
    kind: "sqlite",
    async ping() {
      try {
        // prepared at the first ping: a statement of a closed database throws, as a new one would
        (pingStatement ??= db.prepare("SELECT 1")).get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      /* the database is owned and closed by the service container */
    },
    async importBatch(nodes, edges) {
      importTx.immediate(nodes, edges);
      version++;
    },
    ...reads,
    async mutate(mutations, input) {
      const tx = db.transaction(() => {
        for (const m of mutations) {
          switch (m.op) {
            case "createNode":
              once(() => insertNode.run(nodeRowOf(m.node)), `A node with id ${m.node.id}`);
              break;
            case "updateNode": {
              const row = getNodeStmt.get(m.id) as NodeRow | undefined;
              if (!row) throw new ApiError(404, `Node ${m.id} not found`);
              updateProps.run(JSON.stringify({ ...toNode(row).properties, ...m.properties }), m.id);
              break;
            }
            case "deleteNode":
              deleteEdgesOf.run(m.id, m.id);
              deleteNodeStmt.run(m.id);
              break;
            case "createEdge":
              once(() => insertEdge.run(toEdgeRow(m.edge)), `An edge with id ${m.edge.id}`);
              break;
            case "deleteEdge":
              deleteEdgeStmt.run(m.id);
              break;
          }
        }
        // the embedded store: the graph write and its audit entry commit together
        return audit.embedded ? audit.appendSync(input) : undefined;
      });
      // IMMEDIATE: the write lock first, so the audit batch thread cannot commit between this
      // transaction's reads (the chain's head) and its writes (decision 0034)
      const inTx = tx.immediate();
      version++;
      // the audit log in PostgreSQL (DATABASE_URL): appended once the graph write has committed, as with Neo4j
      return inTx ?? (await audit.append(input));
    },
    version() {
      return version;
    },
  };
  return store;
}
