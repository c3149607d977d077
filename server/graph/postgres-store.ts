import { sql, type RawBuilder } from "kysely";
import type { AuditLog } from "../audit/log";
import { ApiError } from "../http/errors";
import type { Relational, Sql } from "../storage/relational";
import { type EdgeRecord, type GraphEdge, type NodeRecord } from "./model";
import { withDeadline } from "./neo4j-reachability";
import { nodeRowOf, sqlGraphReads, toEdge, toNode, type EdgeRow, type NodeRow } from "./sql-graph";
import { lastPerId, perVersion, type GraphStore } from "./store";

/**
 * The graph in PostgreSQL: the embedded store's two tables (sqlite-store.ts) on the relational port's
 * PostgreSQL adapter, so that every hub instance sharing one DATABASE_URL shares one graph (chosen when
 * DATABASE_URL is set and NEO4J_URI is not; decision 0051). A write, its audit entry and the `graph`
 * topic of the change feed commit in one transaction. Other instances learn of it by the feed
 * (LISTEN/NOTIFY): `version()` adds the feed's version to this instance's own count, so their caches
 * kept per graph version are dropped when the notice arrives, as with Neo4j. A seed batch is idempotent
 * on ids, so an interrupted seed resumes (server/graph/seed-on-start.ts).
 */

/** the change-feed topic of the graph's content (the Neo4j adapter uses the same) */
const GRAPH_TOPIC = "graph";

/**
 * The lock that serialises graph writes and seed batches of every instance: seed batches of instances
 * starting at once upsert the same rows, and every write updates the kept counts (graph_counts)
 */
const WRITE_LOCK = "graph-write";

/**
 * The indexes no write needs for its correctness: a bulk load into an empty graph drops them and builds
 * them once at its end (decision 0068); every start builds any that is missing.
 */
const SECONDARY_INDEXES = [
  "graph_nodes_layer ON graph_nodes(layer, seq)",
  "graph_nodes_label ON graph_nodes(label, seq)",
  "graph_edges_source ON graph_edges(source, type, target)",
  "graph_edges_target ON graph_edges(target, source)",
  "graph_edges_layers ON graph_edges(source_layer, target_layer)",
];

/** a node with this many edges in one direction or more is reached from the other end (edgesAmong) */
const DEGREE_CAP = 128;

export async function createPostgresGraphStore(
  rel: Relational,
  audit: AuditLog,
  opts: { timeoutMs?: number } = {},
): Promise<GraphStore> {
  if (rel.dialect !== "postgres")
    throw new Error("the PostgreSQL graph store needs the PostgreSQL relational store");
  const timeoutMs = opts.timeoutMs ?? 5_000;
  await rel.migrate("graph-pg-1", async (db) => {
    for (const statement of [
      `CREATE TABLE graph_nodes (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        label text NOT NULL,
        layer text NOT NULL,
        props jsonb NOT NULL
      )`,
      "CREATE INDEX graph_nodes_layer ON graph_nodes(layer, seq)",
      "CREATE INDEX graph_nodes_label ON graph_nodes(label, seq)",
      `CREATE TABLE graph_edges (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        source text NOT NULL,
        target text NOT NULL,
        type text NOT NULL,
        props jsonb,
        source_layer text,
        target_layer text
      )`,
      "CREATE INDEX graph_edges_source ON graph_edges(source, type, target)",
      "CREATE INDEX graph_edges_target ON graph_edges(target, type)",
      "CREATE INDEX graph_edges_layers ON graph_edges(source_layer, target_layer)",
    ])
      await sql.raw(statement).execute(db);
  });
  // the counts the graph routes answer with (nodes per layer, edges per pair of layers), kept by
  // statement triggers in the transaction of every write, whoever makes it (decision 0078)
  await rel.migrate("graph-pg-2", async (db) => {
    const delta = (table: "nodes" | "edges") => {
      const key =
        table === "nodes"
          ? "'node:' || layer"
          : "'edge:' || coalesce(source_layer, '') || ':' || coalesce(target_layer, '')";
      const add = (rows: string, sign: string) =>
        `INSERT INTO graph_counts (key, n) SELECT ${key}, ${sign}count(*) FROM ${rows} GROUP BY 1 ORDER BY 1
           ON CONFLICT (key) DO UPDATE SET n = graph_counts.n + excluded.n;`;
      return `CREATE FUNCTION graph_count_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP IN ('UPDATE', 'DELETE') THEN ${add("old_rows", "-")} END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN ${add("new_rows", "")} END IF;
          RETURN NULL;
        END $$`;
    };
    const statements = [
      "CREATE TABLE graph_counts (key text PRIMARY KEY, n bigint NOT NULL)",
      `INSERT INTO graph_counts (key, n) SELECT 'node:' || layer, count(*) FROM graph_nodes GROUP BY 1`,
      `INSERT INTO graph_counts (key, n)
         SELECT 'edge:' || coalesce(source_layer, '') || ':' || coalesce(target_layer, ''), count(*) FROM graph_edges GROUP BY 1`,
      delta("nodes"),
      delta("edges"),
    ];
    // a trigger with transition tables takes one event
    for (const table of ["nodes", "edges"])
      statements.push(
        `CREATE TRIGGER graph_${table}_count_insert AFTER INSERT ON graph_${table} REFERENCING NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION graph_count_${table}()`,
        `CREATE TRIGGER graph_${table}_count_update AFTER UPDATE ON graph_${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION graph_count_${table}()`,
        `CREATE TRIGGER graph_${table}_count_delete AFTER DELETE ON graph_${table} REFERENCING OLD TABLE AS old_rows
           FOR EACH STATEMENT EXECUTE FUNCTION graph_count_${table}()`,
      );
    for (const statement of statements) await sql.raw(statement).execute(db);
  });

  // the pairs probe of edgesAmong: an index on (target, source); the reads by target (relationships,
  // expand) filter their types on the rows they read
  await rel.migrate("graph-pg-3", async (db) => {
    await sql.raw("DROP INDEX graph_edges_target").execute(db);
    await sql.raw("CREATE INDEX graph_edges_target ON graph_edges(target, source)").execute(db);
  });

  const run = async <R>(q: Sql, query: RawBuilder<R>) => (await query.execute(q)).rows;
  const db = rel.db;

  /** builds the secondary indexes that are missing (none, but after an interrupted bulk load) */
  async function buildIndexes() {
    for (const index of SECONDARY_INDEXES)
      await rel.tx(async (tx) => {
        // one sort in memory where it fits (decision 0068)
        await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(tx);
        await sql.raw(`CREATE INDEX IF NOT EXISTS ${index}`).execute(tx);
      });
  }
  await buildIndexes();
  /** this instance's writes and imports; other instances' come through the change feed */
  let local = 1;
  const version = () => local + rel.changes.version(GRAPH_TOPIC);

  // the kept counts (graph_counts), read once per graph version
  const keptCounts = perVersion(version, async () => {
    const rows = await run<{ key: string; n: number }>(db, sql`SELECT key, n FROM graph_counts`);
    return new Map(rows.map((r) => [r.key, Number(r.n)]));
  });
  /**
   * The edges whose both ends are in `ids`, bounded by the set's size rather than by its nodes' degrees
   * (a dataset has an outgoing edge per patient; decision 0062). First each node's out- and in-degree,
   * each counted up to DEGREE_CAP; then an edge a→b is read
   * - from a's outgoing edges when a has at most DEGREE_CAP - 1 of them,
   * - else from b's incoming edges when b has at most DEGREE_CAP - 1 of them,
   * - else by one probe of the (target, source) index for the pair (a, b).
   * So at most 2·|ids|·DEGREE_CAP index entries and (high out) × (high in) probes. The order is the one
   * of reading each node's outgoing edges in the set's order: by source, type, insertion.
   */
  async function edgesAmong(tx: Sql, list: string[]): Promise<GraphEdge[]> {
    // the row estimates of these queries are far off, and JIT compiling them costs more than they do
    await sql`SET LOCAL jit = off`.execute(tx);
    const degrees = await run<{ id: string; out: number; in: number }>(
      tx,
      sql`SELECT s.id,
                 (SELECT count(*) FROM (SELECT 1 FROM graph_edges e WHERE e.source = s.id LIMIT ${DEGREE_CAP}) x)::int AS out,
                 (SELECT count(*) FROM (SELECT 1 FROM graph_edges e WHERE e.target = s.id LIMIT ${DEGREE_CAP}) x)::int AS in
            FROM unnest(${list}::text[]) AS s(id)`,
    );
    const [lowOut, highOut, lowIn, highIn]: string[][] = [[], [], [], []];
    for (const d of degrees) {
      (d.out < DEGREE_CAP ? lowOut : highOut).push(d.id);
      (d.in < DEGREE_CAP ? lowIn : highIn).push(d.id);
    }
    const cols = sql`e.id, e.source, e.target, e.type, e.seq`;
    // the LIMIT (never reached: these nodes have fewer edges) keeps the planner from probing the
    // (target, source) index once per pair instead
    const parts = [
      sql`SELECT ${cols} FROM unnest(${lowOut}::text[]) AS s(id)
           CROSS JOIN LATERAL (SELECT * FROM graph_edges WHERE source = s.id LIMIT ${DEGREE_CAP}) AS e
           WHERE e.target = ANY(${list}::text[])`,
    ];
    if (highOut.length) {
      parts.push(
        sql`SELECT ${cols} FROM unnest(${lowIn}::text[]) AS t(id)
             CROSS JOIN LATERAL (SELECT * FROM graph_edges WHERE target = t.id LIMIT ${DEGREE_CAP}) AS e
             WHERE e.source = ANY(${highOut}::text[])`,
      );
      if (highIn.length)
        parts.push(
          sql`SELECT ${cols} FROM unnest(${highOut}::text[]) AS s(id) CROSS JOIN unnest(${highIn}::text[]) AS t(id)
               CROSS JOIN LATERAL (SELECT * FROM graph_edges WHERE target = t.id AND source = s.id OFFSET 0) AS e`,
        );
    }
    const rows = await run<EdgeRow & { seq: string }>(tx, sql.join(parts, sql` UNION ALL `));
    const place = new Map(list.map((id, k) => [id, k]));
    rows.sort(
      (a, b) =>
        place.get(a.source)! - place.get(b.source)! ||
        (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) ||
        Number(a.seq) - Number(b.seq),
    );
    return rows.map(toEdge);
  }

  const reads = sqlGraphReads({
    all: async (query) => run(db, query),
    keptCounts,
    // the neighbours' ids from the edge indexes alone, the first `n` by id, then those `n` nodes (ordering
    // by insertion reads every neighbour's row: a concept has one per patient coded with it)
    newNeighbours: async (frontier, seen, n) =>
      (
        await run<NodeRow>(
          db,
          sql`SELECT id, label, layer, props FROM graph_nodes WHERE id IN (
              SELECT other FROM (SELECT target AS other FROM graph_edges WHERE source = ANY(${frontier}::text[])
                                 UNION SELECT source FROM graph_edges WHERE target = ANY(${frontier}::text[])) AS x
               WHERE NOT (other = ANY(${seen}::text[])) ORDER BY other LIMIT ${n})
            ORDER BY id`,
        )
      ).map(toNode),
    edgesAmong: (ids) => rel.tx((tx) => edgesAmong(tx, ids)),
    // compared as JSON: numbers, strings and booleans as stored
    propEquals: (key, v) => sql`props -> ${sql.lit(key)} = ${JSON.stringify(v)}::jsonb`,
    propertyKeys: (label) =>
      sql`SELECT DISTINCT jsonb_object_keys(s.props) AS k
            FROM (SELECT props FROM graph_nodes WHERE label = ${label} ORDER BY seq LIMIT 200) s ORDER BY k`,
  });

  /** nodes then edges of a batch, one multi-row INSERT each, existing ids replaced */
  async function upsertBatch(tx: Sql, nodes: NodeRecord[], edges: EdgeRecord[]) {
    const nodeRows = lastPerId(nodes.map(nodeRowOf));
    const edgeRows = lastPerId(edges.map(({ properties, ...e }) => ({ ...e, props: properties ?? null })));
    if (nodeRows.length)
      await sql`INSERT INTO graph_nodes (id, label, layer, props)
        SELECT r.id, r.label, r.layer, r.props::jsonb
          FROM ROWS FROM (jsonb_to_recordset(${JSON.stringify(nodeRows)}::jsonb) AS (id text, label text, layer text, props text))
               WITH ORDINALITY AS r(id, label, layer, props, k)
         ORDER BY r.k
        ON CONFLICT (id) DO UPDATE SET label = excluded.label, layer = excluded.layer, props = excluded.props`.execute(
        tx,
      );
    if (edgeRows.length)
      await sql`INSERT INTO graph_edges (id, source, target, type, props, source_layer, target_layer)
        SELECT r.id, r.source, r.target, r.type, r.props, s.layer, t.layer
          FROM ROWS FROM (jsonb_to_recordset(${JSON.stringify(edgeRows)}::jsonb) AS (id text, source text, target text, type text, props jsonb))
               WITH ORDINALITY AS r(id, source, target, type, props, k)
          LEFT JOIN graph_nodes AS s ON s.id = r.source
          LEFT JOIN graph_nodes AS t ON t.id = r.target
         ORDER BY r.k
        ON CONFLICT (id) DO UPDATE SET source = excluded.source, target = excluded.target, type = excluded.type,
          props = excluded.props, source_layer = excluded.source_layer, target_layer = excluded.target_layer`.execute(
        tx,
      );
  }

  return {
    kind: "postgres",
    async ping(probeMs) {
      try {
        await withDeadline(sql`SELECT 1`.execute(db), Math.min(probeMs, timeoutMs));
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      /* the pool belongs to the relational store, closed by the service container */
    },
    async importBatch(nodes, edges) {
      await rel.tx(async (tx) => {
        await rel.lock(tx, WRITE_LOCK);
        await upsertBatch(tx, nodes, edges);
        await rel.changes.bump(tx, GRAPH_TOPIC);
      });
      local++;
    },
    async bulkLoad(work) {
      // the indexes are dropped only while the graph is empty, under the write lock (another instance
      // may have begun its own load); building them again at the end needs no lock (IF NOT EXISTS)
      await rel.tx(async (tx) => {
        await rel.lock(tx, WRITE_LOCK);
        const [any] = await run(tx, sql`SELECT 1 FROM graph_nodes LIMIT 1`);
        if (any) return;
        for (const index of SECONDARY_INDEXES)
          await sql.raw(`DROP INDEX IF EXISTS ${index.split(" ")[0]}`).execute(tx);
      });
      let result;
      try {
        result = await work();
      } catch (e) {
        // built now if the database still answers, else by the next start
        await buildIndexes().catch(() => undefined);
        throw e;
      }
      await buildIndexes();
      return result;
    },
    ...reads,
    async mutate(mutations, input) {
      // the graph write, its audit entry and the notice to the other instances commit together
      const entry = await rel.tx(async (tx) => {
        // graph writes one at a time (they update the same rows of graph_counts, in differing orders)
        await rel.lock(tx, WRITE_LOCK);
        /** an insert whose id is taken answers 409 "<what> already exists" */
        const once = (insert: RawBuilder<unknown>, what: string) =>
          insert.execute(tx).catch((e: unknown) => {
            throw (e as { code?: string }).code === "23505" ? new ApiError(409, `${what} already exists`) : e;
          });
        for (const m of mutations) {
          switch (m.op) {
            case "createNode": {
              const n = nodeRowOf(m.node);
              await once(
                sql`INSERT INTO graph_nodes (id, label, layer, props) VALUES (${n.id}, ${n.label}, ${n.layer}, ${n.props}::jsonb)`,
                `A node with id ${m.node.id}`,
              );
              break;
            }
            case "updateNode": {
              const rows = await run(
                tx,
                sql`UPDATE graph_nodes SET props = props || ${JSON.stringify(m.properties)}::jsonb WHERE id = ${m.id} RETURNING id`,
              );
              if (!rows.length) throw new ApiError(404, `Node ${m.id} not found`);
              break;
            }
            case "deleteNode":
              await sql`DELETE FROM graph_edges WHERE source = ${m.id} OR target = ${m.id}`.execute(tx);
              await sql`DELETE FROM graph_nodes WHERE id = ${m.id}`.execute(tx);
              break;
            case "createEdge": {
              const e = m.edge;
              await once(
                sql`INSERT INTO graph_edges (id, source, target, type, props, source_layer, target_layer)
                  VALUES (${e.id}, ${e.source}, ${e.target}, ${e.type}, ${e.properties ? JSON.stringify(e.properties) : null}::jsonb,
                    (SELECT layer FROM graph_nodes WHERE id = ${e.source}), (SELECT layer FROM graph_nodes WHERE id = ${e.target}))`,
                `An edge with id ${e.id}`,
              );
              break;
            }
            case "deleteEdge":
              await sql`DELETE FROM graph_edges WHERE id = ${m.id}`.execute(tx);
              break;
          }
        }
        await rel.changes.bump(tx, GRAPH_TOPIC);
        return audit.append(input, { tx });
      });
      local++;
      return entry;
    },
    version,
  };
}
