import type { AuditInput, AuditEntry } from "../audit/model";
import { createKept, EVERYONE } from "../http/kept";
import type {
  EdgeRecord,
  GraphNode,
  GraphResponse,
  Layer,
  Mutation,
  NodeRecord,
  Properties,
  Relationship,
} from "./model";

export interface NodeQuery {
  label: string;
  /** exact-match filters on properties */
  where?: Properties;
  limit?: number;
  offset?: number;
  /** the nodes after this one in the store's order (the id of the last node of the page before): a keyset page */
  after?: string;
}

export interface NeighbourQuery {
  id: string;
  /** only relationships of these types (any when omitted) */
  types?: string[];
  direction?: "out" | "in" | "both";
  limit?: number;
}

export interface GraphCounts {
  nodesByLabel: Record<string, number>;
  edgesByType: Record<string, number>;
  /** property keys seen per label (a sample is enough for Neo4j) */
  propertyKeysByLabel: Record<string, string[]>;
  /** edges whose source or target node does not exist */
  danglingEdges: number;
  /** nodes whose id appears more than once (0 when the store enforces uniqueness) */
  duplicateIds: number;
}

/**
 * The port every graph backend implements: the embedded SQLite store (default), PostgreSQL (with
 * DATABASE_URL, so instances on one database share one graph) and Neo4j (NEO4J_URI). All pass
 * tests/contract/graph-store.contract.ts. All writes go through `mutate`, which applies the mutations
 * and appends the audit entry in one transaction (SQLite, PostgreSQL), so an acknowledged write and its
 * audit entry are never separated; with Neo4j an intent in the relational store stands for the entry
 * until it is appended.
 */
export interface GraphStore {
  readonly kind: "sqlite" | "postgres" | "neo4j";
  /** a cheap round-trip to the backend; resolves false instead of throwing */
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;

  /** bulk load used by the seeder; no audit, idempotent on ids (existing ids are replaced) */
  importBatch(nodes: NodeRecord[], edges: EdgeRecord[]): Promise<void>;
  /**
   * Runs `work` (many `importBatch` calls into an empty graph) as a bulk load: the store may defer work
   * to its end (PostgreSQL builds its secondary indexes after it, decision 0068). An interrupted bulk
   * load leaves a correct graph; what was deferred is done when the store starts again. Optional.
   */
  bulkLoad?<T>(work: () => Promise<T>): Promise<T>;
  countNodes(layers?: readonly Layer[]): Promise<number>;

  /** the first `limit` nodes of the given layers (stable order, spread across layers) and the edges among them */
  sampleGraph(layers: readonly Layer[], limit: number, layerLabel: string): Promise<GraphResponse>;
  /** nodes within `depth` hops of `id` (both directions), at most `limit` nodes; null when id is unknown */
  expand(id: string, depth: number, limit: number): Promise<GraphResponse | null>;
  getNode(id: string): Promise<GraphNode | null>;
  relationships(query: NeighbourQuery): Promise<Relationship[]>;
  findNodes(query: NodeQuery): Promise<GraphNode[]>;
  countWhere(label: string, where?: Properties): Promise<number>;
  counts(): Promise<GraphCounts>;

  mutate(mutations: Mutation[], audit: AuditInput): Promise<AuditEntry>;
  /** a number that changes whenever the graph changes (for response caches) */
  version(): number;

  /**
   * Start-up work that needs the backend (seeding an empty graph), for a store that starts in the
   * background (Neo4j, decision 0019): run once the backend is reachable, retried with the start-up,
   * with the store's calls answering 503 until it is done. Absent on the embedded store, which runs
   * such work at once.
   */
  whenReachable?(work: (calls: GraphCalls) => Promise<void>): void;
}

/** the store's calls without its lifecycle: what start-up work is handed */
export type GraphCalls = Omit<GraphStore, "ping" | "close" | "whenReachable">;

/** the nodes `id` is linked to by a `type` relationship in `direction` (at most `limit`, the store's 1,000 when omitted) */
export async function linked(
  graph: Pick<GraphStore, "relationships">,
  id: string,
  type: string,
  direction: "in" | "out",
  limit?: number,
): Promise<GraphNode[]> {
  return (await graph.relationships({ id, types: [type], direction, limit })).map((r) => r.node);
}

/**
 * The relationships a NeighbourQuery asks for, as every store reads them: the outgoing ones, then the
 * incoming ones, at most `q.limit` (1,000 when omitted) in all; `read` gives at most `n` of one direction
 */
export async function relationshipsOf(
  q: NeighbourQuery,
  read: (direction: "out" | "in", n: number) => Promise<Relationship[]>,
): Promise<Relationship[]> {
  const limit = q.limit ?? 1000;
  const out: Relationship[] = [];
  for (const direction of ["out", "in"] as const)
    if ((q.direction ?? "both") !== (direction === "out" ? "in" : "out") && out.length < limit)
      out.push(...(await read(direction, limit - out.length)));
  return out;
}

/** one row per id, the last one winning (as when they are written one after the other) */
export const lastPerId = <R extends { id: string }>(rows: R[]) => [
  ...new Map(rows.map((r) => [r.id, r])).values(),
];

/** `load`, read once per `version()` (one that fails is read again at the next call) */
export function perVersion<T>(version: () => number, load: () => Promise<T>): () => Promise<T> {
  const kept = createKept<T>({ max: 1 });
  return () => kept({ caller: EVERYONE, versions: [version()] }, load);
}
