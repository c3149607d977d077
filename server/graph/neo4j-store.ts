import { randomUUID } from "node:crypto";
import neo4j, { type Driver, type ManagedTransaction, type Session } from "neo4j-driver";
import type { AuditLog } from "../audit/log";
import type { Relational } from "../storage/relational";
import { createAuditIntents } from "./audit-intents";
import { ApiError } from "../http/errors";
import {
  countIn,
  expandFrom,
  LAYERS,
  LAYER_LABELS,
  layerOfKind,
  layerOfLabel,
  safeKey,
  sampleAnswer,
  UPPER_SNAKE_CASE,
  type EdgeRecord,
  type GraphEdge,
  type GraphNode,
  type NodeRecord,
  type Layer,
  type Properties,
} from "./model";
import { GRAPH_LIMIT_DEFAULT } from "./contract";
import { allocateQuota } from "./quota";
import {
  bulkTimeout,
  deleteEdgeStatement,
  DEGREES_STATEMENT,
  EDGE_COUNT_ADD,
  EDGE_COUNTS_INIT,
  EDGE_COUNTS_READ,
  EDGE_DEGREE_CAP,
  denseEdgesStatement,
  EDGES_AMONG_STATEMENT,
  edgeIndexName,
  labelCountsStatement,
  labelIndexName,
  lastSeqStatement,
  layerSampleStatement,
  pairOf,
  nodeFrom,
  safeLabel,
  safeType,
  SCHEMA,
  schemaTimeout,
  WRITE_MARKS_PRUNE,
} from "./neo4j-records";
import {
  createReachability,
  GraphSchemaError,
  isReachabilityFailure,
  withDeadline,
  type Reachability,
} from "./neo4j-reachability";
import {
  lastPerId,
  perVersion,
  relationshipsOf,
  type GraphCalls,
  type GraphCounts,
  type GraphStore,
} from "./store";

/**
 * The Neo4j adapter of the GraphStore port. Every node carries the label of its kind plus `:GraphNode`
 * (unique `id`, indexed `layer` and `seq`), so both stores sample in the same order; each kind's label
 * has an index on `seq` (findNodes' keyset pages). Relationship ids live in the `id` property. It
 * passes tests/contract/graph-store.contract.ts when NEO4J_URI is set.
 *
 * Audit entries live in the relational store, not in Neo4j: an intent there stands for the entry until
 * the write has committed (audit-intents.ts, decision 0051).
 *
 * A cluster (docs/deployment.md, "Neo4j cluster"): reads in read transactions (routed to followers),
 * writes to the leader, both retried never past the call's deadline; one bookmark manager per instance;
 * other instances learn of a write through the change feed (topic `graph`), which moves `version()`.
 *
 * Neo4j away (decision 0019): the start-up runs in the background, retried, and calls answer 503 while
 * Neo4j is away or starting (neo4j-reachability.ts); every call is bounded by `timeoutMs`.
 */

interface Neo4jOptions {
  uri: string;
  user: string;
  password: string;
  database: string | undefined;
  /** how long a transaction is retried on transient errors (default 10 s; each call's deadline still applies) */
  retryMs?: number;
  /** the time budget of every call, connecting included (UPSTREAM_TIMEOUT_MS; default 5 s) */
  timeoutMs?: number;
  /** first and longest pause between two failed start-up attempts (default 500 ms, 30 s) */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * Test hook (HUB_TEST_PAUSE_AFTER_GRAPH_COMMIT_MS, absent otherwise): after each Neo4j commit, say so
   * on stdout and wait this long before the audit entry, so a test can kill the hub between the two.
   */
  pauseAfterCommitMs?: number;
}

/** each node's relationships out and in (edgesAmong starts from them) */
type Degrees = Map<string, { outs: number; ins: number }>;

/** the graph's size from which the start-up warms what the routes read */
const WARM_UP_MIN_NODES = 25_000;
/** an intent without its write mark this old is a write that never committed (longer than any write's retries) */
const INTENT_STALE_MS = 120_000;
/** how often pending intents (of a crashed instance) are looked for while running */
const INTENT_SWEEP_MS = 60_000;

export async function createNeo4jGraphStore(
  opts: Neo4jOptions,
  audit: AuditLog,
  /** the relational store of the audit log: its audit intents and change feed (without it, entries are appended after the commit with no intent) */
  rel?: Relational,
): Promise<GraphStore> {
  const changes = rel?.changes;
  const intents = rel ? await createAuditIntents(rel, audit) : undefined;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const driver: Driver = neo4j.driver(opts.uri, neo4j.auth.basic(opts.user, opts.password), {
    // a connection (TCP, then the Bolt handshake and log-on) within the call's budget
    connectionAcquisitionTimeout: timeoutMs,
    connectionTimeout: timeoutMs,
    maxTransactionRetryTime: opts.retryMs ?? 10_000,
    disableLosslessIntegers: true,
  });
  // causal consistency inside this instance: every session carries the bookmarks of the writes before it
  const bookmarks = neo4j.bookmarkManager();
  const session = (): Session => driver.session({ database: opts.database, bookmarkManager: bookmarks });
  let version = 1;
  let seq = 0;
  let writes = 0;

  /**
   * One managed transaction within `ms` (retries included). Past the deadline the session is closed
   * (no more retries) and GraphDeadlineError is thrown; `onLate` gets a result that still arrives.
   */
  async function transaction<T>(
    mode: "read" | "write",
    work: (tx: ManagedTransaction) => Promise<T>,
    ms = timeoutMs,
    onLate?: (value: T) => void,
  ): Promise<T> {
    const s = session();
    let result: T;
    try {
      result = await withDeadline(mode === "read" ? s.executeRead(work) : s.executeWrite(work), ms, onLate);
    } catch (e) {
      // not awaited: closing a session whose connection hangs can wait as long
      void s.close().catch(() => undefined);
      throw e;
    }
    await s.close();
    return result;
  }
  const read = <T>(work: (tx: ManagedTransaction) => Promise<T>) => transaction("read", work);
  /** one column of a read statement's records, as strings */
  const column = (statement: string, key: string, params?: Record<string, unknown>) =>
    read(async (tx) => (await tx.run(statement, params)).records.map((x) => String(x.get(key))));
  const write = <T>(work: (tx: ManagedTransaction) => Promise<T>, ms?: number, onLate?: (v: T) => void) =>
    transaction("write", work, ms, onLate);

  /** relationship types whose `id` index exists (deleteEdge finds an edge through them) */
  const indexedTypes = new Set<string>();
  async function indexEdgeTypes(types: Iterable<string>) {
    const missing = [...new Set(types)].filter((t) => !indexedTypes.has(safeType(t)));
    // a schema change is a transaction of its own
    for (const t of missing) {
      await write(async (tx) => {
        await tx.run(`CREATE INDEX ${edgeIndexName(t)} IF NOT EXISTS FOR ()-[r:${t}]-() ON (r.id)`);
      });
      // the type's dense-edges statement planned now, not by the first read that needs it (decision 0080)
      await read((tx) => tx.run(denseEdgesStatement(t), { highOut: [], highIn: [] }).then(() => undefined));
      indexedTypes.add(t);
    }
  }

  /** kinds' labels whose `seq` index exists (findNodes' keyset pages seek it; decision 0090) */
  const indexedLabels = new Set<string>();
  async function indexNodeLabels(labels: Iterable<string>) {
    // a label of no kind is refused by the write itself
    const missing = [...new Set(labels)].filter((l) => layerOfLabel(l) && !indexedLabels.has(l));
    for (const l of missing) {
      await write(async (tx) => {
        await tx.run(`CREATE INDEX ${labelIndexName(l)} IF NOT EXISTS FOR (n:${safeLabel(l)}) ON (n.seq)`);
      });
      indexedLabels.add(l);
    }
  }

  // start-up, in the background: connectivity, then the schema and the sequence counter once. Neo4j
  // unreachable is retried; a schema Neo4j refuses (duplicate ids already there, no privilege) is not:
  // it is logged as what it is and the graph stays unavailable (decision 0046)
  const reach: Reachability = createReachability({
    timeoutMs,
    backoff: opts.backoff,
    check: () =>
      withDeadline(driver.verifyConnectivity({ database: opts.database }), timeoutMs).then(() => undefined),
    init: async () => {
      const schemaMs = schemaTimeout(timeoutMs);
      try {
        for (const statement of SCHEMA)
          await write((tx) => tx.run(statement).then(() => undefined), schemaMs);
        // an index is populated in the background: the layer samples (and the sequence counter below)
        // read it, so the store is ready once it is online
        await transaction(
          "read",
          (tx) =>
            tx
              .run("CALL db.awaitIndex('graph_node_layer', $s)", { s: Math.round(schemaMs / 1000) })
              .then(() => undefined),
          schemaMs,
        );
        const types = await column(
          "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
          "relationshipType",
        );
        await indexEdgeTypes(types.filter((t) => UPPER_SNAKE_CASE.test(t)));
        await indexNodeLabels(await column("CALL db.labels() YIELD label RETURN label", "label"));
        // the relationships per pair of layers, counted once for a graph loaded without them
        await write(async (tx) => {
          const marker = await tx.run(EDGE_COUNTS_INIT.marker);
          if (marker.records[0].get("fresh") !== true) return;
          await tx.run(EDGE_COUNTS_INIT.zero);
          await tx.run(EDGE_COUNTS_INIT.walk);
        }, schemaMs);
        await completeIntents();
        await write((tx) => tx.run(WRITE_MARKS_PRUNE).then(() => undefined));
      } catch (e) {
        if (isReachabilityFailure(e)) throw e;
        throw new GraphSchemaError(e);
      }
      seq = await transaction(
        "read",
        async (tx) => {
          const r = await tx.run(lastSeqStatement, { layers: LAYERS });
          return Number(r.records[0]?.get("s") ?? 0);
        },
        schemaMs,
      );
      await warmUp(schemaMs);
    },
  });

  /** the last of the start-up work (decision 0080): the graph routes' samples read once, planned and cached */
  async function warmUp(ms: number) {
    const nodes = Object.values(await transaction("read", layerCounts, ms)).reduce((a, b) => a + b, 0);
    if (nodes < WARM_UP_MIN_NODES) return;
    await transaction(
      "read",
      (tx) => tx.run("CALL db.awaitIndexes($s)", { s: Math.round(ms / 1000) }).then(() => undefined),
      ms,
    );
    for (const layers of [LAYERS, ...LAYERS.map((l) => [l])])
      await sample(layers, GRAPH_LIMIT_DEFAULT, "warm-up", ms);
  }

  /**
   * Intents left by a crash (this instance's, or another's): a write whose mark is in Neo4j committed and
   * gets its entry now, whatever its age; one without its mark is dropped once no retry of it can still
   * commit. Runs at start-up, before the marks older than an hour are pruned, and every minute.
   */
  async function completeIntents() {
    const completed = await intents?.settle(
      async (marks) =>
        new Set(await column("MATCH (w:GraphWrite) WHERE w.id IN $marks RETURN w.id AS id", "id", { marks })),
      INTENT_STALE_MS,
    );
    if (completed) {
      version++;
      console.warn(
        `[graph] ${completed} audit entr${completed === 1 ? "y" : "ies"} of graph writes committed before a crash appended`,
      );
      await changes?.notify("graph");
    }
  }
  const sweep = setInterval(() => {
    if (reach.state === "ready")
      void completeIntents().catch((e) => console.error("[graph] audit intents:", e));
  }, INTENT_SWEEP_MS);
  sweep.unref();

  const NODE_RETURN =
    "n.id AS id, [l IN labels(n) WHERE l <> 'GraphNode'][0] AS label, n.layer AS layer, properties(n) AS props";
  /** a sampled node and its degrees (DEGREES_STATEMENT's, read with it) */
  const SAMPLE_RETURN = `${NODE_RETURN}, COUNT { (n)-->() } AS outs, COUNT { (n)<--() } AS ins`;

  async function createNode(
    tx: ManagedTransaction,
    n: { id: string; label: string; properties: Properties },
  ) {
    const layer = layerOfKind(n.label);
    await tx.run(
      `CREATE (n:GraphNode {id: $id}) SET n:${safeLabel(n.label)}, n += $props, n.layer = $layer, n.seq = $seq`,
      { id: n.id, props: n.properties, layer, seq: ++seq },
    );
  }

  /**
   * A batch in two statements (UNWIND; the kind's label and the relationship type are set from the
   * row: Cypher 5.26's dynamic labels and types, so the two are planned once), idempotent on ids: a
   * node is merged on its unique id, an edge is looked for between its two ends (an expand-into, from
   * the end with fewer relationships) and created only when missing.
   */
  async function upsertBatch(tx: ManagedTransaction, nodes: NodeRecord[], edges: EdgeRecord[]) {
    const nodeRows = nodes.map((n) => {
      const layer = layerOfKind(n.label);
      return { id: n.id, label: safeLabel(n.label), layer, seq: ++seq, props: n.properties };
    });
    if (nodeRows.length)
      await tx.run(
        "UNWIND $rows AS row MERGE (n:GraphNode {id: row.id}) SET n:$(row.label), n += row.props, n.layer = row.layer, n.seq = coalesce(n.seq, row.seq)",
        { rows: nodeRows },
      );
    const edgeRows = lastPerId(
      edges.map(({ properties, ...e }) => ({ ...e, type: safeType(e.type), props: properties ?? {} })),
    );
    if (edgeRows.length)
      await tx.run(
        `UNWIND $rows AS row
         MATCH (a:GraphNode {id: row.source}) MATCH (b:GraphNode {id: row.target})
         OPTIONAL MATCH (a)-[old {id: row.id}]->(b)
         FOREACH (e IN CASE WHEN old IS NULL THEN [] ELSE [old] END | SET e += row.props)
         WITH a, b, row, old WHERE old IS NULL
         CREATE (a)-[r:$(row.type) {id: row.id}]->(b) SET r += row.props
         WITH ${pairOf("a", "b")} AS pair, count(r) AS k ${EDGE_COUNT_ADD}`,
        { rows: edgeRows },
      );
  }

  /** nodes per layer: the sum of its labels' counts in Neo4j's count store (no node is read) */
  const LABELS = LAYERS.flatMap((l) => LAYER_LABELS[l]);
  const LABEL_COUNTS = labelCountsStatement(LABELS);
  async function layerCounts(tx: ManagedTransaction): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    const row = (await tx.run(LABEL_COUNTS)).records[0];
    for (const label of LABELS) {
      const layer = layerOfLabel(label)!;
      counts[layer] = (counts[layer] ?? 0) + Number(row.get(label));
    }
    return counts;
  }

  /**
   * Relationships whose both ends are in `layers`: the count store's total for every layer, else the sum
   * of the counts every write keeps per pair of layers (`:GraphEdgeCount`, decision 0078): never a walk.
   */
  const keptPairCounts = perVersion(
    () => raw.version(),
    () =>
      read(async (tx) => {
        const r = await tx.run(EDGE_COUNTS_READ);
        return new Map(r.records.map((x) => [String(x.get("pair")), Number(x.get("n"))]));
      }),
  );
  async function edgeTotal(layers: readonly Layer[]): Promise<number> {
    if (LAYERS.every((l) => layers.includes(l)))
      return read(async (tx) => {
        const r = await tx.run("MATCH ()-[e]->() RETURN count(e) AS n");
        return Number(r.records[0].get("n"));
      });
    const kept = await keptPairCounts();
    let n = 0;
    for (const a of new Set(layers)) for (const b of new Set(layers)) n += kept.get(`${a}:${b}`) ?? 0;
    return n;
  }

  async function sampleLayers(layers: readonly Layer[], limit: number, ms = timeoutMs) {
    return transaction(
      "read",
      async (tx) => {
        const counts = await layerCounts(tx);
        const quota = allocateQuota(layers, counts, limit);
        // every layer's statement sent at once (one round trip, not one per layer), with each node's
        // degrees, which the edges among the sample start from
        const parts = await Promise.all(
          layers
            .filter((l) => quota.get(l))
            .map((l) =>
              tx.run(layerSampleStatement(SAMPLE_RETURN), { layer: l, q: neo4j.int(quota.get(l)!) }),
            ),
        );
        const nodes: GraphNode[] = [];
        const degrees: Degrees = new Map();
        for (const rec of parts.flatMap((r) => r.records)) {
          const node = nodeFrom(rec.toObject() as never);
          nodes.push(node);
          degrees.set(node.id, { outs: Number(rec.get("outs")), ins: Number(rec.get("ins")) });
        }
        return { nodes, counts, degrees };
      },
      ms,
    );
  }

  /** the edges among `ids` (neo4j-records.ts EDGES_AMONG_STATEMENT), the statements sent at once in one transaction */
  async function edgesAmong(ids: string[], ms = timeoutMs, known?: Degrees): Promise<GraphEdge[]> {
    if (!ids.length) return [];
    return transaction(
      "read",
      async (tx) => {
        const degrees: Degrees =
          known ??
          new Map(
            (await tx.run(DEGREES_STATEMENT, { ids })).records.map((d) => [
              String(d.get("id")),
              { outs: Number(d.get("outs")), ins: Number(d.get("ins")) },
            ]),
          );
        const [lowOut, highOut, lowIn, highIn]: string[][] = [[], [], [], []];
        for (const [id, d] of degrees) {
          (d.outs < EDGE_DEGREE_CAP ? lowOut : highOut).push(id);
          (d.ins < EDGE_DEGREE_CAP ? lowIn : highIn).push(id);
        }
        const dense = highOut.length && highIn.length ? [...indexedTypes] : [];
        const results = await Promise.all([
          tx.run(EDGES_AMONG_STATEMENT, { ids, lowOut, highOut, lowIn: highOut.length ? lowIn : [] }),
          ...dense.map((t) => tx.run(denseEdgesStatement(t), { highOut, highIn })),
        ]);
        return results.flatMap((r) => r.records.map((x) => x.toObject() as GraphEdge));
      },
      ms,
    );
  }

  /** a sample of `layers` and the edges among it, each of its transactions within `ms` */
  async function sample(layers: readonly Layer[], limit: number, layerLabel: string, ms = timeoutMs) {
    const { nodes, counts, degrees } = await sampleLayers(layers, limit, ms);
    const edges = await edgesAmong(
      nodes.map((n) => n.id),
      ms,
      degrees,
    );
    const totalEdges = await edgeTotal(layers);
    return sampleAnswer(nodes, edges, { layer: layerLabel, layers, counts, totalEdges, limit });
  }

  const whereOf = (filters: Properties | undefined) =>
    Object.keys(filters ?? {}).map((k) => `n.${safeKey(k)} = $where.${k}`);

  /** the calls themselves, unguarded: the start-up work uses them; everyone else goes through `store` below */
  const raw: GraphCalls = {
    kind: "neo4j",
    async importBatch(nodes, edges) {
      await indexNodeLabels(nodes.map((n) => n.label));
      await indexEdgeTypes(edges.map((e) => e.type));
      await write((tx) => upsertBatch(tx, nodes, edges), bulkTimeout(timeoutMs));
      version++;
    },
    countNodes: async (layers) => countIn(await read(layerCounts), layers),
    sampleGraph: (layers, limit, layerLabel) => sample(layers, limit, layerLabel),
    async expand(id, depth, limit) {
      const start = await raw.getNode(id);
      if (!start) return null;
      const hop = (frontier: string[], seen: string[], room: number) =>
        read(async (tx) => {
          const r = await tx.run(
            `MATCH (a:GraphNode)-[]-(n:GraphNode) WHERE a.id IN $ids AND NOT n.id IN $seen WITH DISTINCT n ORDER BY n.seq LIMIT $room RETURN ${NODE_RETURN}`,
            { ids: frontier, seen, room: neo4j.int(room) },
          );
          return r.records.map((x) => nodeFrom(x.toObject() as never));
        });
      return expandFrom(start, depth, limit, hop, (ids) => edgesAmong(ids));
    },
    async getNode(id) {
      return read(async (tx) => {
        const r = await tx.run(`MATCH (n:GraphNode {id: $id}) RETURN ${NODE_RETURN}`, { id });
        return r.records[0] ? nodeFrom(r.records[0].toObject() as never) : null;
      });
    },
    async relationships(q) {
      const typeFilter = q.types?.length ? "AND type(e) IN $types" : "";
      return relationshipsOf(q, (direction, n) => {
        const pattern =
          direction === "out"
            ? "(a:GraphNode {id: $id})-[e]->(n:GraphNode)"
            : "(a:GraphNode {id: $id})<-[e]-(n:GraphNode)";
        return read(async (tx) => {
          const r = await tx.run(
            `MATCH ${pattern} WHERE true ${typeFilter} RETURN e.id AS eid, type(e) AS etype, ${NODE_RETURN} ORDER BY n.seq LIMIT $limit`,
            { id: q.id, types: q.types ?? [], limit: neo4j.int(n) },
          );
          return r.records.map((x) => {
            const row = x.toObject() as Parameters<typeof nodeFrom>[0] & { eid: string; etype: string };
            return { id: row.eid, type: row.etype, direction, node: nodeFrom(row) };
          });
        });
      });
    },
    async findNodes(q) {
      const where = whereOf(q.where);
      // a keyset page: the nodes after the anchor's seq (no anchor found, no page), a seek of the label's
      // seq index in its order that stops at the page's end; the subquery keeps it a seek (decision 0090)
      const label = safeLabel(q.label);
      let statement = `MATCH (n:${label}) ${where.length ? `WHERE ${where.join(" AND ")}` : ""} RETURN ${NODE_RETURN} ORDER BY n.seq SKIP $offset LIMIT $limit`;
      if (q.after !== undefined)
        statement = `MATCH (a:GraphNode {id: $after})
          CALL { WITH a MATCH (n:${label}) WHERE ${["n.seq > a.seq", ...where].join(" AND ")} RETURN n ORDER BY n.seq SKIP $offset LIMIT $limit }
          RETURN ${NODE_RETURN} ORDER BY n.seq`;
      return read(async (tx) => {
        const r = await tx.run(statement, {
          where: q.where ?? {},
          after: q.after ?? null,
          offset: neo4j.int(q.offset ?? 0),
          limit: neo4j.int(q.limit ?? 1000),
        });
        return r.records.map((x) => nodeFrom(x.toObject() as never));
      });
    },
    async countWhere(label, whereProps) {
      const where = whereOf(whereProps);
      return read(async (tx) => {
        const r = await tx.run(
          `MATCH (n:${safeLabel(label)}) ${where.length ? `WHERE ${where.join(" AND ")}` : ""} RETURN count(n) AS n`,
          { where: whereProps ?? {} },
        );
        return Number(r.records[0].get("n"));
      });
    },
    async counts(): Promise<GraphCounts> {
      return read(async (tx) => {
        const tally = async (statement: string, key: string): Promise<Record<string, number>> =>
          Object.fromEntries((await tx.run(statement)).records.map((r) => [r.get(key), Number(r.get("n"))]));
        // a node carrying :GraphNode alone (loaded by hand) has no kind to count it under
        const nodesByLabel = await tally(
          "MATCH (n:GraphNode) WITH [l IN labels(n) WHERE l <> 'GraphNode'][0] AS label WHERE label IS NOT NULL RETURN label, count(*) AS n",
          "label",
        );
        const edgesByType = await tally("MATCH ()-[e]->() RETURN type(e) AS type, count(e) AS n", "type");
        const propertyKeysByLabel: Record<string, string[]> = {};
        for (const label of Object.keys(nodesByLabel)) {
          const k = await tx.run(
            `MATCH (n:${safeLabel(label)}) WITH n ORDER BY n.seq LIMIT 200 UNWIND keys(n) AS k WITH DISTINCT k WHERE NOT k IN ['id','layer','seq'] RETURN k ORDER BY k`,
          );
          propertyKeysByLabel[label] = k.records.map((r) => r.get("k"));
        }
        return {
          nodesByLabel,
          edgesByType,
          propertyKeysByLabel,
          danglingEdges: 0,
          // the start-up created the unique constraint on :GraphNode(id), or failed (GraphSchemaError)
          duplicateIds: 0,
        };
      });
    },
    async mutate(mutations, input) {
      // the driver runs the work again when a commit's answer is lost: the write's own mark, made in the
      // same transaction, tells a second run that the first one committed (no 409 for its own node); the
      // mark also tells a start-up after a crash that the write's audit intent is owed its entry
      const mark = randomUUID();
      // the entry of a committed write: its intent completed (or, without a relational store, appended)
      const entryOf = async () => (intents ? await intents.complete(mark) : undefined) ?? audit.append(input);
      // a commit that arrives after the deadline (the caller got 503) still gets its audit entry
      const lateCommit = () => {
        version++;
        entryOf()
          .then(() => {
            console.warn(`[graph] ${input.action} on ${input.target} committed after its deadline`);
            return changes?.notify("graph");
          })
          .catch((e: unknown) =>
            console.error(`[graph] audit of a late commit (${input.action}) failed:`, e),
          );
      };
      await indexNodeLabels(mutations.flatMap((m) => (m.op === "createNode" ? [m.node.label] : [])));
      await indexEdgeTypes(mutations.flatMap((m) => (m.op === "createEdge" ? [m.edge.type] : [])));
      const edgeTypes = mutations.some((m) => m.op === "deleteEdge") ? [...indexedTypes] : [];
      // no graph write without its audit entry: the intent first, in the relational store
      await intents?.record(mark, input);
      try {
        await write(
          async (tx) => {
            const first = await tx.run(
              "MERGE (w:GraphWrite {id: $mark}) ON CREATE SET w.at = datetime(), w.fresh = true ON MATCH SET w.fresh = false RETURN w.fresh AS fresh",
              { mark },
            );
            if (first.records[0].get("fresh") !== true) return;
            for (const m of mutations) {
              switch (m.op) {
                case "createNode":
                  await createNode(tx, m.node);
                  break;
                case "updateNode": {
                  const r = await tx.run("MATCH (n:GraphNode {id: $id}) SET n += $props RETURN n.id", {
                    id: m.id,
                    props: m.properties,
                  });
                  if (!r.records.length) throw new ApiError(404, `Node ${m.id} not found`);
                  break;
                }
                case "deleteNode":
                  // its relationships taken off the kept counts of their pairs of layers, then deleted
                  await tx.run(
                    `MATCH (n:GraphNode {id: $id})
                     CALL { WITH n MATCH (n)-[e]-() WITH DISTINCT e
                            WITH ${pairOf("startNode(e)", "endNode(e)")} AS pair, -count(e) AS k ${EDGE_COUNT_ADD} }
                     DETACH DELETE n`,
                    { id: m.id },
                  );
                  break;
                case "createEdge": {
                  const r = await tx.run(
                    `MATCH (a:GraphNode {id: $source}), (b:GraphNode {id: $target}) CREATE (a)-[e:${safeType(m.edge.type)} {id: $id}]->(b)
                     WITH e, ${pairOf("a", "b")} AS pair, 1 AS k ${EDGE_COUNT_ADD} RETURN e.id`,
                    { id: m.edge.id, source: m.edge.source, target: m.edge.target },
                  );
                  if (!r.records.length)
                    throw new ApiError(404, `Relationship ends of ${m.edge.id} not found`);
                  break;
                }
                case "deleteEdge":
                  // one index seek per relationship type, never a scan of every relationship
                  if (edgeTypes.length) await tx.run(deleteEdgeStatement(edgeTypes), { id: m.id });
                  break;
              }
            }
          },
          undefined,
          lateCommit,
        );
      } catch (e) {
        const refused =
          e instanceof ApiError ||
          String((e as { code?: string }).code ?? "").includes("ConstraintValidationFailed");
        // refused by the graph: nothing committed, nothing to audit. Otherwise (deadline, lost connection)
        // the intent stays: a late commit or the sweep completes it from the mark
        if (refused) await intents?.drop(mark).catch(() => undefined);
        if (e instanceof ApiError) throw e;
        if (refused) throw new ApiError(409, "A node with that id already exists");
        throw e;
      }
      version++;
      if (opts.pauseAfterCommitMs) {
        console.log(`[graph] test hook: paused after the Neo4j commit of ${mark}`);
        await new Promise((r) => setTimeout(r, opts.pauseAfterCommitMs));
      }
      if (++writes % 500 === 0)
        void write((tx) => tx.run(WRITE_MARKS_PRUNE).then(() => undefined)).catch(() => undefined);
      const entry = await entryOf();
      await changes?.notify("graph");
      return entry;
    },
    version() {
      // this instance's writes and imports, plus every other instance's writes (change feed)
      return version + (changes?.version("graph") ?? 0);
    },
  };

  const guarded =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>, budgetMs?: number) =>
    (...args: A): Promise<R> =>
      reach.guard((ms) => withDeadline(call(...args), ms), budgetMs);

  const store: GraphStore = {
    kind: "neo4j",
    async ping(probeMs) {
      // while away or starting, the background attempts do the connecting: no new socket per probe
      if (reach.state !== "ready") return false;
      try {
        await withDeadline(driver.verifyConnectivity({ database: opts.database }), probeMs);
        return true;
      } catch (e) {
        reach.failed(e);
        return false;
      }
    },
    async close() {
      clearInterval(sweep);
      reach.close();
      await withDeadline(driver.close(), timeoutMs).catch(() => undefined);
    },
    whenReachable(work) {
      reach.whenReachable(() => work(raw));
    },
    importBatch: guarded(raw.importBatch, bulkTimeout(timeoutMs)),
    countNodes: guarded(raw.countNodes),
    sampleGraph: guarded(raw.sampleGraph),
    expand: guarded(raw.expand),
    getNode: guarded(raw.getNode),
    relationships: guarded(raw.relationships),
    findNodes: guarded(raw.findNodes),
    countWhere: guarded(raw.countWhere),
    counts: guarded(raw.counts),
    mutate: guarded(raw.mutate),
    version: raw.version,
  };
  return store;
}
