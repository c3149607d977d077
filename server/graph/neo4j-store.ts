import neo4j, { type Driver, type ManagedTransaction, type Session } from "neo4j-driver";
import type { AuditLog } from "../audit/log";
import type { ChangeFeed } from "../storage/relational";
import { ApiError } from "../http/errors";
import {
  LAYERS,
  layerOfLabel,
  type GraphEdge,
  type GraphNode,
  type Layer,
  type Properties,
  type Relationship,
} from "./model";
import { allocateQuota } from "./quota";
import { bulkTimeout, nodeFrom, safeLabel, safeType, SAFE_KEY } from "./neo4j-records";
import {
  createReachability,
  isReachabilityFailure,
  withDeadline,
  type Reachability,
} from "./neo4j-reachability";
import type { GraphCalls, GraphCounts, GraphStore } from "./store";

/**
 * The Neo4j adapter of the GraphStore port. Every node carries the label of its kind plus `:GraphNode`
 * (unique `id`, indexed `layer` and `seq`), so both stores sample in the same order. Relationship
 * ids live in the `id` property. It passes tests/contract/graph-store.contract.ts when NEO4J_URI is set.
 *
 * Audit entries are appended to the relational log right after the Neo4j transaction commits; the
 * two are not one transaction (see README, "Not done yet").
 *
 * A cluster (docs/deployment.md): a `neo4j://` URI gives the routing driver; reads run in read
 * transactions (`executeRead`), which the driver routes to followers and read replicas; writes go to the
 * leader; both are retried on transient errors (leader switch, deadlock) for at most
 * `maxTransactionRetryTime` and never past the call's deadline, so a failing cluster answers within a
 * bounded time. One bookmark manager
 * is shared by every session of this instance, so a read sees this instance's own earlier writes even
 * when a follower serves it. Other instances learn of a write through the change feed (topic `graph`):
 * their cached graph bodies, keyed by `version()`, are dropped when the notice arrives.
 *
 * Neo4j away (decision 0019): building the store touches no network. Start-up (constraints, then the
 * work queued with `whenReachable`: seeding) runs in the background once Neo4j answers, retried with a
 * backoff (server/graph/neo4j-reachability.ts). Every call is bounded by `timeoutMs` (connection,
 * acquisition, and a deadline over the whole call); while Neo4j is away or starting, calls answer 503
 * (`graphUnavailable`) at once instead of trying to connect.
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
}

export async function createNeo4jGraphStore(
  opts: Neo4jOptions,
  audit: AuditLog,
  changes?: ChangeFeed,
): Promise<GraphStore> {
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
  const write = <T>(work: (tx: ManagedTransaction) => Promise<T>, ms?: number, onLate?: (v: T) => void) =>
    transaction("write", work, ms, onLate);

  // start-up, in the background: connectivity, then constraints and the sequence counter once
  // (a database that refuses them, e.g. for want of privileges, still serves: as before)
  const reach: Reachability = createReachability({
    timeoutMs,
    backoff: opts.backoff,
    check: () =>
      withDeadline(driver.verifyConnectivity({ database: opts.database }), timeoutMs).then(() => undefined),
    init: async () => {
      await write(async (tx) => {
        await tx.run(
          "CREATE CONSTRAINT graph_node_id IF NOT EXISTS FOR (n:GraphNode) REQUIRE n.id IS UNIQUE",
        );
        await tx.run("CREATE INDEX graph_node_layer IF NOT EXISTS FOR (n:GraphNode) ON (n.layer, n.seq)");
      }).catch(rethrowIfAway);
      seq = await read(async (tx) => {
        const r = await tx.run("MATCH (n:GraphNode) RETURN coalesce(max(n.seq), 0) AS s");
        return Number(r.records[0]?.get("s") ?? 0);
      }).catch((e: unknown) => (rethrowIfAway(e), 0));
    },
  });
  function rethrowIfAway(e: unknown): undefined {
    if (isReachabilityFailure(e)) throw e;
    return undefined;
  }

  const NODE_RETURN =
    "n.id AS id, [l IN labels(n) WHERE l <> 'GraphNode'][0] AS label, n.layer AS layer, properties(n) AS props";

  async function createNode(
    tx: ManagedTransaction,
    n: { id: string; label: string; properties: Properties },
    upsert: boolean,
  ) {
    const layer = layerOfLabel(n.label);
    if (!layer) throw new Error(`label ${n.label} belongs to no layer`);
    const verb = upsert ? "MERGE" : "CREATE";
    await tx.run(
      `${verb} (n:GraphNode {id: $id}) SET n:${safeLabel(n.label)}, n += $props, n.layer = $layer, n.seq = coalesce(n.seq, $seq)`,
      { id: n.id, props: n.properties, layer, seq: ++seq },
    );
  }

  async function sampleLayers(layers: readonly Layer[], limit: number) {
    return read(async (tx) => {
      const counts: Record<string, number> = {};
      const c = await tx.run(
        "MATCH (n:GraphNode) WHERE n.layer IN $layers RETURN n.layer AS layer, count(n) AS n",
        { layers },
      );
      for (const r of c.records) counts[r.get("layer")] = Number(r.get("n"));
      const quota = allocateQuota(
        layers.map((l) => ({ key: l, available: counts[l] ?? 0 })),
        limit,
      );
      const nodes: GraphNode[] = [];
      for (const l of layers) {
        const q = quota.get(l) ?? 0;
        if (!q) continue;
        const r = await tx.run(
          `MATCH (n:GraphNode {layer: $layer}) RETURN ${NODE_RETURN} ORDER BY n.seq LIMIT $q`,
          { layer: l, q: neo4j.int(q) },
        );
        for (const rec of r.records) nodes.push(nodeFrom(rec.toObject() as never));
      }
      return { nodes, counts };
    });
  }

  async function edgesAmong(ids: string[]): Promise<GraphEdge[]> {
    return read(async (tx) => {
      const r = await tx.run(
        "MATCH (a:GraphNode)-[e]->(b:GraphNode) WHERE a.id IN $ids AND b.id IN $ids RETURN e.id AS id, a.id AS source, b.id AS target, type(e) AS type",
        { ids },
      );
      return r.records.map((x) => x.toObject() as GraphEdge);
    });
  }

  /** the calls themselves, unguarded: the start-up work uses them; everyone else goes through `store` below */
  const raw: GraphCalls = {
    kind: "neo4j",
    async importBatch(nodes, edges) {
      await write(async (tx) => {
        for (const n of nodes) await createNode(tx, n, true);
        for (const e of edges) {
          await tx.run(
            `MATCH (a:GraphNode {id: $source}), (b:GraphNode {id: $target}) MERGE (a)-[r:${safeType(e.type)} {id: $id}]->(b) SET r += $props`,
            { id: e.id, source: e.source, target: e.target, props: e.properties ?? {} },
          );
        }
      }, bulkTimeout(timeoutMs));
      version++;
    },
    async countNodes(layers) {
      return read(async (tx) => {
        const r = await tx.run("MATCH (n:GraphNode) WHERE n.layer IN $layers RETURN count(n) AS n", {
          layers: layers ?? LAYERS,
        });
        return Number(r.records[0].get("n"));
      });
    },
    async sampleGraph(layers, limit, layerLabel) {
      const { nodes, counts } = await sampleLayers(layers, limit);
      const edges = await edgesAmong(nodes.map((n) => n.id));
      const totalEdges = await read(async (tx) => {
        const r = await tx.run(
          "MATCH (a:GraphNode)-[e]->(b:GraphNode) WHERE a.layer IN $layers AND b.layer IN $layers RETURN count(e) AS n",
          { layers },
        );
        return Number(r.records[0].get("n"));
      });
      const totalNodes = layers.reduce((s, l) => s + (counts[l] ?? 0), 0);
      return {
        nodes,
        edges,
        meta: {
          layer: layerLabel,
          totalNodes,
          totalEdges,
          returnedNodes: nodes.length,
          returnedEdges: edges.length,
          limit,
          truncated: nodes.length < totalNodes,
        },
      };
    },
    async expand(id, depth, limit) {
      const start = await raw.getNode(id);
      if (!start) return null;
      const seen = new Map<string, GraphNode>([[id, start]]);
      let frontier = [id];
      let truncated = false;
      for (let d = 0; d < depth && frontier.length && !truncated; d++) {
        const next: string[] = [];
        const found = await read(async (tx) => {
          const r = await tx.run(
            `MATCH (a:GraphNode)-[]-(n:GraphNode) WHERE a.id IN $ids RETURN DISTINCT ${NODE_RETURN}`,
            { ids: frontier },
          );
          return r.records.map((x) => nodeFrom(x.toObject() as never));
        });
        for (const n of found) {
          if (seen.has(n.id)) continue;
          if (seen.size >= limit) {
            truncated = true;
            break;
          }
          seen.set(n.id, n);
          next.push(n.id);
        }
        frontier = next;
      }
      const nodes = [...seen.values()];
      const edges = await edgesAmong([...seen.keys()]);
      return {
        nodes,
        edges,
        meta: {
          layer: "expand",
          totalNodes: nodes.length,
          totalEdges: edges.length,
          returnedNodes: nodes.length,
          returnedEdges: edges.length,
          limit,
          truncated,
        },
      };
    },
    async getNode(id) {
      return read(async (tx) => {
        const r = await tx.run(`MATCH (n:GraphNode {id: $id}) RETURN ${NODE_RETURN}`, { id });
        return r.records[0] ? nodeFrom(r.records[0].toObject() as never) : null;
      });
    },
    async relationships(q) {
      const limit = q.limit ?? 1000;
      const dir = q.direction ?? "both";
      const typeFilter = q.types?.length ? "AND type(e) IN $types" : "";
      const out: Relationship[] = [];
      for (const direction of ["out", "in"] as const) {
        if (dir !== "both" && dir !== direction) continue;
        if (out.length >= limit) break;
        const pattern =
          direction === "out"
            ? "(a:GraphNode {id: $id})-[e]->(n:GraphNode)"
            : "(a:GraphNode {id: $id})<-[e]-(n:GraphNode)";
        const rows = await read(async (tx) => {
          const r = await tx.run(
            `MATCH ${pattern} WHERE true ${typeFilter} RETURN e.id AS eid, type(e) AS etype, ${NODE_RETURN} ORDER BY n.seq LIMIT $limit`,
            {
              id: q.id,
              types: q.types ?? [],
              limit: neo4j.int(limit - out.length),
            },
          );
          return r.records.map(
            (x) =>
              x.toObject() as {
                eid: string;
                etype: string;
                id: string;
                label: string;
                layer: string;
                props: Record<string, unknown>;
              },
          );
        });
        for (const r of rows) out.push({ id: r.eid, type: r.etype, direction, node: nodeFrom(r) });
      }
      return out;
    },
    async findNodes(q) {
      const where = Object.keys(q.where ?? {}).map((k) => {
        if (!SAFE_KEY.test(k)) throw new Error(`unsafe property key ${k}`);
        return `n.${k} = $where.${k}`;
      });
      return read(async (tx) => {
        const r = await tx.run(
          `MATCH (n:${safeLabel(q.label)}) ${where.length ? `WHERE ${where.join(" AND ")}` : ""} RETURN ${NODE_RETURN} ORDER BY n.seq SKIP $offset LIMIT $limit`,
          { where: q.where ?? {}, offset: neo4j.int(q.offset ?? 0), limit: neo4j.int(q.limit ?? 1000) },
        );
        return r.records.map((x) => nodeFrom(x.toObject() as never));
      });
    },
    async countWhere(label, whereProps) {
      const where = Object.keys(whereProps ?? {}).map((k) => {
        if (!SAFE_KEY.test(k)) throw new Error(`unsafe property key ${k}`);
        return `n.${k} = $where.${k}`;
      });
      return read(async (tx) => {
        const r = await tx.run(
          `MATCH (n:${safeLabel(label)}) ${where.length ? `WHERE ${where.join(" AND ")}` : ""} RETURN count(n) AS n`,
          {
            where: whereProps ?? {},
          },
        );
        return Number(r.records[0].get("n"));
      });
    },
    async counts(): Promise<GraphCounts> {
      return read(async (tx) => {
        const nodesByLabel: Record<string, number> = {};
        const n = await tx.run(
          "MATCH (n:GraphNode) RETURN [l IN labels(n) WHERE l <> 'GraphNode'][0] AS label, count(n) AS n",
        );
        for (const r of n.records) nodesByLabel[r.get("label")] = Number(r.get("n"));
        const edgesByType: Record<string, number> = {};
        const e = await tx.run("MATCH ()-[e]->() RETURN type(e) AS type, count(e) AS n");
        for (const r of e.records) edgesByType[r.get("type")] = Number(r.get("n"));
        const propertyKeysByLabel: Record<string, string[]> = {};
        for (const label of Object.keys(nodesByLabel)) {
          const k = await tx.run(
            `MATCH (n:${safeLabel(label)}) WITH n ORDER BY n.seq LIMIT 200 UNWIND keys(n) AS k WITH DISTINCT k WHERE NOT k IN ['id','layer','seq'] RETURN k ORDER BY k`,
          );
          propertyKeysByLabel[label] = k.records.map((r) => r.get("k"));
        }
        const d = await tx.run(
          "MATCH (n:GraphNode) WITH n.id AS id, count(*) AS c WHERE c > 1 RETURN count(id) AS n",
        );
        return {
          nodesByLabel,
          edgesByType,
          propertyKeysByLabel,
          danglingEdges: 0,
          duplicateIds: Number(d.records[0].get("n")),
        };
      });
    },
    async mutate(mutations, input) {
      // a commit that arrives after the deadline (the caller got 503) still gets its audit entry
      const lateCommit = () => {
        version++;
        audit
          .append(input)
          .then(() => {
            console.warn(`[graph] ${input.action} on ${input.target} committed after its deadline`);
            return changes?.notify("graph");
          })
          .catch((e: unknown) =>
            console.error(`[graph] audit of a late commit (${input.action}) failed:`, e),
          );
      };
      try {
        await write(
          async (tx) => {
            for (const m of mutations) {
              switch (m.op) {
                case "createNode":
                  await createNode(tx, m.node, false);
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
                  await tx.run("MATCH (n:GraphNode {id: $id}) DETACH DELETE n", { id: m.id });
                  break;
                case "createEdge": {
                  const r = await tx.run(
                    `MATCH (a:GraphNode {id: $source}), (b:GraphNode {id: $target}) CREATE (a)-[e:${safeType(m.edge.type)} {id: $id}]->(b) RETURN e.id`,
                    { id: m.edge.id, source: m.edge.source, target: m.edge.target },
                  );
                  if (!r.records.length)
                    throw new ApiError(404, `Relationship ends of ${m.edge.id} not found`);
                  break;
                }
                case "deleteEdge":
                  await tx.run("MATCH ()-[e {id: $id}]->() DELETE e", { id: m.id });
                  break;
              }
            }
          },
          undefined,
          lateCommit,
        );
      } catch (e) {
        if (String((e as { code?: string }).code ?? "").includes("ConstraintValidationFailed")) {
          throw new ApiError(409, "A node with that id already exists");
        }
        throw e;
      }
      version++;
      if (!changes) return audit.append(input);
      // the entry and the notice to the other instances commit together
      const rel = changes;
      return audit.append(input).then(async (entry) => {
        await rel.notify("graph");
        return entry;
      });
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
