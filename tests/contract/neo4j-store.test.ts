import { connect, createServer, type Socket } from "node:net";
import { ManagedTransaction } from "neo4j-driver";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAuditLog } from "../../server/audit/log";
import { createAuditIntents } from "../../server/graph/audit-intents";
import { createNeo4jGraphStore } from "../../server/graph/neo4j-store";
import {
  DEGREES_STATEMENT,
  deleteEdgeStatement,
  EDGE_DEGREE_CAP,
  denseEdgesStatement,
  EDGES_AMONG_STATEMENT,
  lastSeqStatement,
  labelCountsStatement,
  labelIndexName,
  layerSampleStatement,
} from "../../server/graph/neo4j-records";
import { LAYERS, LAYER_LABELS } from "../../server/graph/model";
import { seedIfEmpty } from "../../server/graph/seed-on-start";
import { createSqliteGraphStore } from "../../server/graph/sqlite-store";
import { generateGraph } from "../../server/graph/synthetic/generate";
import { seedStore } from "../../server/graph/synthetic/seed";
import type { GraphStore } from "../../server/graph/store";
import { openDatabase } from "../../server/storage/database";
import { openSqliteRelational } from "../../server/storage/relational/sqlite";
import { emptyNeo4j, testNeo4j, testNeo4jDriver } from "../support/neo4j";

/**
 * The Neo4j adapter against a real Neo4j 5.26 (the Neo4j pass of npm test sets NEO4J_URI): what only a
 * real server shows (decision 0046). Each test starts on an emptied database.
 */

const neo = testNeo4j();
const AUDIT = { actor: "t", action: "graph.test", target: "x", outcome: "ok", kind: "graph" };

async function storeOn(uri = neo!.NEO4J_URI) {
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const store = await createNeo4jGraphStore(
    { uri, user: neo!.NEO4J_USER, password: neo!.NEO4J_PASSWORD, database: undefined, timeoutMs: 30_000 },
    audit,
    rel,
  );
  return {
    store,
    audit,
    async close() {
      await store.close();
      db.close();
    },
  };
}

async function cypher(statement: string, params: Record<string, unknown> = {}) {
  const driver = testNeo4jDriver();
  try {
    return (await driver.executeQuery(statement, params)).records.map((r) => r.toObject());
  } finally {
    await driver.close();
  }
}

async function eventually<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined as T);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > until) throw new Error(`not reached within ${ms} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A TCP proxy in front of Neo4j that, once armed, forwards a transaction's COMMIT and then cuts the
 * connection instead of passing Neo4j's answer on: the commit succeeded, its answer is lost.
 */
async function commitAnswerCutter(target: URL) {
  const COMMIT = Buffer.from([0x00, 0x02, 0xb0, 0x12, 0x00, 0x00]);
  let armed = false;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let cutNext = false;
    client.on("data", (d: Buffer) => {
      if (armed && d.includes(COMMIT)) {
        armed = false;
        cutNext = true;
      }
      upstream.write(d);
    });
    upstream.on("data", (d: Buffer) => {
      if (cutNext) {
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(d);
    });
    for (const s of [client, upstream]) {
      s.on("error", () => undefined);
      s.on("close", () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    uri: `bolt://127.0.0.1:${(server.address() as { port: number }).port}`,
    arm: () => (armed = true),
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** the operators of a plan, root first */
function operatorsOf(plan: unknown): string {
  const operators: string[] = [];
  const walk = (p: { operatorType: string; children: unknown[] }) => {
    operators.push(p.operatorType);
    for (const c of p.children) walk(c as never);
  };
  walk(plan as never);
  return operators.join(" ");
}

/** the db hits of a profiled plan, every operator's */
function dbHitsOf(profile: unknown): number {
  const p = profile as { dbHits: number; children: unknown[] };
  return p.dbHits + p.children.reduce<number>((s, c) => s + dbHitsOf(c), 0);
}

describe.runIf(!!neo)("Neo4j adapter on a real Neo4j", () => {
  let open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.reverse()) await o.close();
    open = [];
    vi.restoreAllMocks();
  });
  const started = async (uri?: string) => {
    await emptyNeo4j();
    const s = await storeOn(uri);
    open.push(s);
    return s;
  };

  it("counts() passes over a node that carries :GraphNode alone", async () => {
    const { store } = await started();
    await store.importBatch([{ id: "p1", label: "Patient", layer: "l3", properties: { name: "A" } }], []);
    await cypher("CREATE (:GraphNode {id: 'bare', layer: 'l3', seq: 99})");
    const c = await store.counts();
    expect(c.nodesByLabel).toEqual({ Patient: 1 });
  });

  it("a schema Neo4j refuses (duplicate ids already there) fails the start loudly, not as 'unreachable'", async () => {
    await emptyNeo4j();
    await cypher("DROP CONSTRAINT graph_node_id IF EXISTS");
    await cypher(
      "CREATE (:GraphNode:Patient {id: 'twice', layer: 'l3', seq: 1}), (:GraphNode:Patient {id: 'twice', layer: 'l3', seq: 2})",
    );
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const s = await storeOn();
    open.push({ close: async () => (await s.close(), await emptyNeo4j()) });
    const message = await eventually(
      async () => errors.mock.calls.map((c) => String(c.join(" "))).join("\n"),
      (m) => m.includes("refused the graph schema"),
    );
    expect(message).toMatch(/\[graph\] Neo4j refused the graph schema \(.*graph_node_id/s);
    expect(warnings.mock.calls.join("\n")).not.toMatch(/unreachable/);
    await expect(s.store.countNodes()).rejects.toMatchObject({ status: 503 });
    expect(await s.store.ping(1000)).toBe(false);
  });

  it("expand reads at most `limit` neighbours, the first in seq order", async () => {
    const { store } = await started();
    const concept = { id: "snomed-1", label: "SnomedConcept", layer: "l5" as const, properties: {} };
    const patients = Array.from({ length: 300 }, (_, i) => ({
      id: `patient-${String(i).padStart(4, "0")}`,
      label: "Patient",
      layer: "l3" as const,
      properties: {},
    }));
    await store.importBatch([concept, ...patients], []);
    await store.importBatch(
      [],
      patients.map((p, i) => ({ id: `e${i}`, source: p.id, target: concept.id, type: "CODED_BY" })),
    );
    const g = (await store.expand(concept.id, 1, 20))!;
    expect(g.meta).toMatchObject({ truncated: true, returnedNodes: 20 });
    expect(g.nodes.map((n) => n.id)).toEqual([concept.id, ...patients.slice(0, 19).map((p) => p.id)]);
  });

  it("samples a layer by a seek of the (layer, seq) index, never a scan of every node", async () => {
    const { store } = await started();
    await store.importBatch(
      [
        { id: "p1", label: "Patient", layer: "l3", properties: {} },
        { id: "d1", label: "HealthDataset", layer: "l2", properties: {} },
      ],
      [],
    );
    const driver = testNeo4jDriver();
    try {
      const plan = await driver.executeQuery(`EXPLAIN ${layerSampleStatement("n.id AS id")}`, {
        layer: "l3",
        q: 10,
      });
      const operators: string[] = [];
      const walk = (p: { operatorType: string; children: unknown[] }) => {
        operators.push(p.operatorType);
        for (const c of p.children) walk(c as never);
      };
      walk(plan.summary.plan as never);
      expect(operators.join(" ")).toMatch(/NodeIndexSeek/);
      expect(operators.join(" ")).not.toMatch(/NodeByLabelScan|AllNodesScan|Sort|Top/);
    } finally {
      await driver.close();
    }
    expect((await store.sampleGraph(["l3"], 10, "l3")).nodes.map((n) => n.id)).toEqual(["p1"]);
  });

  it("relationship totals among fewer layers are kept in the graph by every write, never walked", async () => {
    const { store } = await started();
    await store.importBatch(
      [
        { id: "p1", label: "Patient", layer: "l3", properties: {} },
        { id: "c1", label: "Condition", layer: "l3", properties: {} },
        { id: "d1", label: "HealthDataset", layer: "l2", properties: {} },
      ],
      [{ id: "e1", source: "p1", target: "c1", type: "HAS_CONDITION" }],
    );
    const l3 = async () => (await store.sampleGraph(["l3"], 10, "l3")).meta.totalEdges;
    const l2l3 = async () => (await store.sampleGraph(["l2", "l3"], 10, "l2")).meta.totalEdges;
    expect(await l3()).toBe(1);
    // a relationship made behind the store's back: a walk would count it, the kept counts do not
    await cypher(
      "MATCH (a:GraphNode {id: 'p1'}), (b:GraphNode {id: 'c1'}) CREATE (a)-[:HAS_CONDITION {id: 'unseen'}]->(b)",
    );
    // a dataset published (a node in l2, a relationship l2 -> l3): nothing among l3 changed
    await store.mutate(
      [
        { op: "createNode", node: { id: "d2", label: "HealthDataset", layer: "l2", properties: {} } },
        { op: "createEdge", edge: { id: "e2", source: "d2", target: "p1", type: "INCLUDES" } },
      ],
      AUDIT,
    );
    expect(await l3()).toBe(1);
    expect(await l2l3()).toBe(2);
    await store.mutate(
      [{ op: "createEdge", edge: { id: "e3", source: "c1", target: "p1", type: "HAS_CONDITION" } }],
      AUDIT,
    );
    expect(await l3()).toBe(2);
    // a deleted relationship comes off its pair; a deleted node takes its relationships off theirs
    await store.mutate([{ op: "deleteEdge", id: "e3" }], AUDIT);
    expect(await l3()).toBe(1);
    await store.mutate([{ op: "deleteNode", id: "d2" }], AUDIT);
    expect(await l2l3()).toBe(1);
    // a batch imported again adds nothing; another instance reads the same kept counts
    await store.importBatch([], [{ id: "e1", source: "p1", target: "c1", type: "HAS_CONDITION" }]);
    const other = await storeOn();
    open.push(other);
    await eventually(
      () => other.store.sampleGraph(["l3"], 10, "l3"),
      (g) => g.meta.totalEdges === 1,
    );
  });

  it("counts a graph loaded without kept counts once at start-up, then never walks it", async () => {
    await emptyNeo4j();
    // loaded by hand (as neo4j-admin or a hub before decision 0078 leave it): no :GraphEdgeCount
    await cypher(
      `CREATE (p:GraphNode:Patient {id: 'p1', layer: 'l3', seq: 1}), (c:GraphNode:Condition {id: 'c1', layer: 'l3', seq: 2}),
              (d:GraphNode:HealthDataset {id: 'd1', layer: 'l2', seq: 3}),
              (p)-[:HAS_CONDITION {id: 'e1'}]->(c), (d)-[:INCLUDES {id: 'e2'}]->(p), (d)-[:INCLUDES {id: 'e3'}]->(c)`,
    );
    const s = await storeOn();
    open.push(s);
    const l3 = async () => (await s.store.sampleGraph(["l3"], 10, "l3")).meta.totalEdges;
    expect(await eventually(l3, (n) => n === 1)).toBe(1);
    expect((await s.store.sampleGraph(["l2", "l3"], 10, "l2")).meta.totalEdges).toBe(3);
    // counted once: a second start does not count again (nor add to the kept counts)
    await cypher(
      "MATCH (a:GraphNode {id: 'p1'}), (b:GraphNode {id: 'c1'}) CREATE (a)-[:HAS_CONDITION {id: 'unseen'}]->(b)",
    );
    const again = await storeOn();
    open.push(again);
    expect(
      await eventually(
        async () => (await again.store.sampleGraph(["l3"], 10, "l3")).meta.totalEdges,
        (n) => n >= 0,
      ),
    ).toBe(1);
    // the next node's seq follows the highest one there (read from the index at start-up)
    await again.store.mutate(
      [{ op: "createNode", node: { id: "p2", label: "Patient", layer: "l3", properties: {} } }],
      AUDIT,
    );
    expect(await cypher("MATCH (n:GraphNode {id: 'p2'}) RETURN n.seq AS seq")).toEqual([{ seq: 4 }]);
  });

  it("reads the highest seq at start-up from the (layer, seq) index, never a scan of every node", async () => {
    await started();
    const driver = testNeo4jDriver();
    try {
      const plan = await driver.executeQuery(`EXPLAIN ${lastSeqStatement}`, { layers: LAYERS });
      const operators = operatorsOf(plan.summary.plan);
      expect(operators).toMatch(/NodeIndexSeek/);
      expect(operators).not.toMatch(/NodeByLabelScan|AllNodesScan|NodeIndexScan/);
    } finally {
      await driver.close();
    }
  });

  it("reads the edges among a sample from the side with few relationships, not every edge of a dataset", async () => {
    const { store } = await started();
    const dataset = { id: "d1", label: "HealthDataset", layer: "l2" as const, properties: {} };
    const concept = { id: "snomed-1", label: "SnomedConcept", layer: "l5" as const, properties: {} };
    const patients = Array.from({ length: 400 }, (_, i) => ({
      id: `patient-${String(i).padStart(4, "0")}`,
      label: "Patient",
      layer: "l3" as const,
      properties: {},
    }));
    await store.importBatch([dataset, concept, ...patients], []);
    await store.importBatch(
      [],
      patients.flatMap((p, i) => [
        { id: `in${i}`, source: dataset.id, target: p.id, type: "INCLUDES" },
        { id: `co${i}`, source: p.id, target: concept.id, type: "CODED_BY" },
      ]),
    );
    await store.mutate(
      [{ op: "createEdge", edge: { id: "dc", source: dataset.id, target: concept.id, type: "ABOUT" } }],
      AUDIT,
    );
    // the dataset (400 out), the concept (400 in) and two of the patients
    const ids = [dataset.id, concept.id, patients[7]!.id, patients[300]!.id];
    const expected = ["co300", "co7", "dc", "in300", "in7"];
    const driver = testNeo4jDriver();
    try {
      const degrees = await driver.executeQuery(`PROFILE ${DEGREES_STATEMENT}`, { ids });
      const high = (k: string) =>
        degrees.records.filter((r) => r.get(k) >= EDGE_DEGREE_CAP).map((r) => r.get("id"));
      const low = (k: string) =>
        degrees.records.filter((r) => r.get(k) < EDGE_DEGREE_CAP).map((r) => r.get("id"));
      const edges = [
        await driver.executeQuery(`PROFILE ${EDGES_AMONG_STATEMENT}`, {
          ids,
          lowOut: low("outs"),
          highOut: high("outs"),
          lowIn: low("ins"),
        }),
        ...(await Promise.all(
          ["INCLUDES", "CODED_BY", "ABOUT"].map((t) =>
            driver.executeQuery(`PROFILE ${denseEdgesStatement(t)}`, {
              highOut: high("outs"),
              highIn: high("ins"),
            }),
          ),
        )),
      ];
      expect(edges.flatMap((e) => e.records.map((r) => r.get("id"))).sort()).toEqual(expected);
      // every relationship of the dataset or the concept read would be 800 db hits and more
      const hits = [degrees, ...edges].reduce((n, r) => n + dbHitsOf(r.summary.profile), 0);
      expect(hits).toBeLessThan(400);
    } finally {
      await driver.close();
    }
    const g = await store.sampleGraph(["l2", "l3", "l5"], 1000, "all");
    expect(g.edges.length).toBe(1 + 2 * 400);
  });

  it("reads a keyset page of a label by a seek of the label's seq index, never every node of the label", async () => {
    const { store } = await started();
    const patients = Array.from({ length: 2000 }, (_, i) => ({
      id: `patient-${String(i).padStart(4, "0")}`,
      label: "Patient",
      layer: "l3" as const,
      properties: {},
    }));
    await store.importBatch(patients, []);
    // what findNodes runs, profiled below
    const ran: Array<Parameters<ManagedTransaction["run"]>> = [];
    const run = ManagedTransaction.prototype.run;
    vi.spyOn(ManagedTransaction.prototype, "run").mockImplementation(function (
      this: ManagedTransaction,
      ...args: Parameters<typeof run>
    ) {
      ran.push(args);
      return run.apply(this, args);
    });
    // right after the write that made the index (populated in the background): the page is right anyway
    const page = await store.findNodes({ label: "Patient", after: patients[999]!.id, limit: 100 });
    expect(page.map((n) => n.id)).toEqual(patients.slice(1000, 1100).map((p) => p.id));
    vi.restoreAllMocks();
    expect(ran.length).toBe(1);
    await cypher("CALL db.awaitIndexes(60)");
    const driver = testNeo4jDriver();
    try {
      const [statement, params] = ran[0]!;
      const r = await driver.executeQuery(`PROFILE ${String(statement)}`, params as never);
      expect(r.records.map((x) => x.get("id"))).toEqual(page.map((n) => n.id));
      const operators = operatorsOf(r.summary.profile);
      expect(operators).toMatch(/NodeIndexSeekByRange/);
      expect(operators).not.toMatch(/NodeByLabelScan|AllNodesScan|Top/);
      // the whole label read and sorted was 6,403 db hits; the page alone is 504
      expect(dbHitsOf(r.summary.profile)).toBeLessThan(1_500);
    } finally {
      await driver.close();
    }
  });

  it("reads the edges between nodes of high degree per relationship type, only among the nodes that have it", async () => {
    const { store } = await started();
    // 8 datasets each including the same 130 patients, each patient coded by 8 concepts: 8 × 8 pairs of
    // high degree, and 10 more relationship types elsewhere that none of those nodes has
    const datasets = Array.from({ length: 8 }, (_, i) => ({
      id: `d${i}`,
      label: "HealthDataset",
      layer: "l2" as const,
      properties: {},
    }));
    const concepts = Array.from({ length: 8 }, (_, i) => ({
      id: `c${i}`,
      label: "SnomedConcept",
      layer: "l5" as const,
      properties: {},
    }));
    const patients = Array.from({ length: 130 }, (_, i) => ({
      id: `p${i}`,
      label: "Patient",
      layer: "l3" as const,
      properties: {},
    }));
    await store.importBatch([...datasets, ...concepts, ...patients], []);
    const types = Array.from({ length: 10 }, (_, i) => `OTHER_${String.fromCharCode(65 + i)}`);
    await store.importBatch(
      [],
      [
        ...datasets.flatMap((d) =>
          patients.map((p) => ({ id: `${d.id}-${p.id}`, source: d.id, target: p.id, type: "INCLUDES" })),
        ),
        ...patients.flatMap((p) =>
          concepts.map((c) => ({ id: `${p.id}-${c.id}`, source: p.id, target: c.id, type: "CODED_BY" })),
        ),
        ...types.map((t, i) => ({ id: `o${i}`, source: `p${i}`, target: `p${i + 1}`, type: t })),
      ],
    );
    const highOut = datasets.map((d) => d.id);
    const highIn = concepts.map((c) => c.id);
    const driver = testNeo4jDriver();
    try {
      let hits = 0;
      for (const t of ["INCLUDES", "CODED_BY", ...types]) {
        const r = await driver.executeQuery(`PROFILE ${denseEdgesStatement(t)}`, { highOut, highIn });
        expect(r.records).toEqual([]);
        hits += dbHitsOf(r.summary.profile);
      }
      // probing every pair for every type is 64 × 12 expand-intos: more than 3,000 db hits
      expect(hits).toBeLessThan(1_200);
    } finally {
      await driver.close();
    }
    const g = await store.sampleGraph(["l2", "l5"], 1000, "all");
    expect(g.edges).toEqual([]);
  }, 120_000);

  it("counts the nodes per layer from the count store, never a scan of the nodes", async () => {
    const { store } = await started();
    const patients = Array.from({ length: 300 }, (_, i) => ({
      id: `p${i}`,
      label: "Patient",
      layer: "l3" as const,
      properties: {},
    }));
    await store.importBatch(patients, []);
    const driver = testNeo4jDriver();
    try {
      const r = await driver.executeQuery(
        `PROFILE ${labelCountsStatement(LAYERS.flatMap((l) => LAYER_LABELS[l]))}`,
      );
      expect(r.records[0].get("Patient")).toBe(300);
      expect(operatorsOf(r.summary.profile)).not.toMatch(/NodeByLabelScan|AllNodesScan/);
      // one count store lookup per label, not one read per node
      expect(dbHitsOf(r.summary.profile)).toBeLessThan(100);
    } finally {
      await driver.close();
    }
    expect(await store.countNodes(["l3"])).toBe(300);
  });

  it("is ready only once the relationship id and label seq indexes are online and the routes' samples were read once", async () => {
    await emptyNeo4j();
    // a graph loaded without the hub (as neo4j-admin leaves it): its relationship id indexes are built
    // by the start-up, over 18,000 relationships of two types (27,000 nodes: a graph large enough to warm)
    await cypher(
      `UNWIND range(0, 8999) AS i
       CREATE (p:GraphNode:Patient {id: 'p' + i, layer: 'l3', seq: i}),
              (p)-[:HAS_CONDITION {id: 'h' + i}]->(:GraphNode:Condition {id: 'c' + i, layer: 'l3', seq: 9000 + i}),
              (p)-[:HAS_ENCOUNTER {id: 'e' + i}]->(:GraphNode:Encounter {id: 'n' + i, layer: 'l3', seq: 18000 + i})`,
    );
    // and without the seq indexes of its labels (an earlier test's hub made some)
    for (const label of ["Condition", "Encounter", "Patient"])
      await cypher(`DROP INDEX ${labelIndexName(label)} IF EXISTS`);
    const ran: string[] = [];
    const run = ManagedTransaction.prototype.run;
    vi.spyOn(ManagedTransaction.prototype, "run").mockImplementation(function (
      this: ManagedTransaction,
      ...args: Parameters<typeof run>
    ) {
      ran.push(`${String(args[0])} ${JSON.stringify(args[1] ?? {})}`);
      return run.apply(this, args);
    });
    const s = await storeOn();
    open.push(s);
    // the first call waits for the start-up work
    expect(await s.store.countNodes(["l3"])).toBe(27_000);
    const indexes = await cypher(
      "SHOW INDEXES YIELD name, state, populationPercent WHERE name IN ['graph_edge_id_has_condition', 'graph_edge_id_has_encounter'] RETURN name, state, populationPercent ORDER BY name",
    );
    expect(indexes).toEqual(
      ["has_condition", "has_encounter"].map((t) => ({
        name: `graph_edge_id_${t}`,
        state: "ONLINE",
        populationPercent: 100,
      })),
    );
    // and the seq index of every label there
    const labels = ["Condition", "Encounter", "Patient"];
    const seqIndexes = await cypher(
      "SHOW INDEXES YIELD name, state, populationPercent WHERE name IN $names RETURN name, state, populationPercent ORDER BY name",
      { names: labels.map(labelIndexName) },
    );
    expect(seqIndexes).toEqual(
      labels.map((l) => ({
        name: labelIndexName(l),
        state: "ONLINE",
        populationPercent: 100,
      })),
    );
    // every layer's sample and l3's alone (the graph's only layer with nodes), and the edges among
    // each, read before the first call
    const sampled = ran.filter((r) => r.startsWith(layerSampleStatement("").split(" RETURN")[0]));
    expect(sampled.filter((r) => r.includes(`"layer":"l3"`)).length).toBeGreaterThanOrEqual(2);
    expect(ran.filter((r) => r.startsWith(EDGES_AMONG_STATEMENT)).length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("deleteEdge finds the relationship through the id indexes, never scanning every relationship", async () => {
    const { store } = await started();
    await store.importBatch(
      [
        { id: "a", label: "Patient", layer: "l3", properties: {} },
        { id: "b", label: "Condition", layer: "l3", properties: {} },
        { id: "c", label: "SnomedConcept", layer: "l5", properties: {} },
      ],
      [
        { id: "ab", source: "a", target: "b", type: "HAS_CONDITION" },
        { id: "bc", source: "b", target: "c", type: "CODED_BY" },
      ],
    );
    const driver = testNeo4jDriver();
    try {
      const plan = await driver.executeQuery(
        `EXPLAIN ${deleteEdgeStatement(["HAS_CONDITION", "CODED_BY"])}`,
        {
          id: "bc",
        },
      );
      const operators: string[] = [];
      const walk = (p: { operatorType: string; children: unknown[] }) => {
        operators.push(p.operatorType);
        for (const c of p.children) walk(c as never);
      };
      walk(plan.summary.plan as never);
      expect(operators.join(" ")).toMatch(/RelationshipIndexSeek/);
      expect(operators.join(" ")).not.toMatch(/AllRelationshipsScan|RelationshipTypeScan|AllNodesScan/);
    } finally {
      await driver.close();
    }
    await store.mutate([{ op: "deleteEdge", id: "bc" }], AUDIT);
    expect((await store.counts()).edgesByType).toEqual({ HAS_CONDITION: 1 });
  });

  it("a write whose commit succeeded but whose answer was lost is retried without a 409, audited once", async () => {
    await emptyNeo4j();
    const cutter = await commitAnswerCutter(new URL(neo!.NEO4J_URI.replace(/^bolt:/, "http:")));
    open.push(cutter);
    const s = await storeOn(cutter.uri);
    open.push(s);
    await s.store.importBatch([{ id: "p1", label: "Patient", layer: "l3", properties: {} }], []);
    cutter.arm();
    const entry = await s.store.mutate(
      [
        { op: "createNode", node: { id: "obs-1", label: "Observation", layer: "l3", properties: { v: 1 } } },
        {
          op: "createEdge",
          edge: { id: "has-obs-1", source: "p1", target: "obs-1", type: "HAS_OBSERVATION" },
        },
      ],
      AUDIT,
    );
    expect(cutter.cuts).toBe(1);
    expect(entry.action).toBe("graph.test");
    expect(await s.store.countWhere("Observation")).toBe(1);
    expect((await s.store.counts()).edgesByType).toEqual({ HAS_OBSERVATION: 1 });
    expect((await s.audit.list()).filter((e) => e.action === "graph.test")).toHaveLength(1);
  });

  it("completes at start the audit intents a crash left: an entry for a committed write, none for one that never committed", async () => {
    await emptyNeo4j();
    // the relational store a crashed instance wrote its intents to
    const db = openDatabase(":memory:");
    const rel = openSqliteRelational(db);
    const audit = await createAuditLog(rel, db);
    const intents = await createAuditIntents(rel, audit);
    const input = (target: string) => ({ ...AUDIT, target });
    await cypher("CREATE (:GraphWrite {id: 'committed', at: datetime()})");
    await intents.record("committed", input("t-committed"), new Date(Date.now() - 10_000));
    await intents.record("never", input("t-never"), new Date(Date.now() - 600_000));
    // another instance's write still in flight: neither completed nor dropped
    await intents.record("in-flight", input("t-in-flight"));
    const store = await createNeo4jGraphStore(
      {
        uri: neo!.NEO4J_URI,
        user: neo!.NEO4J_USER,
        password: neo!.NEO4J_PASSWORD,
        database: undefined,
        timeoutMs: 30_000,
      },
      audit,
      rel,
    );
    open.push({
      async close() {
        await store.close();
        db.close();
      },
    });
    await eventually(
      () => store.countNodes(),
      (n) => n === 0,
    );
    const targets = (await audit.list({ limit: 10 })).map((e) => e.target);
    expect(targets).toEqual(["t-committed"]);
    expect(await intents.olderThan(0)).toEqual(["in-flight"]);
    // a write Neo4j refuses leaves no intent behind and no entry
    const node = { id: "n1", label: "Patient", layer: "l3" as const, properties: {} };
    await store.mutate([{ op: "createNode", node }], input("n1"));
    await expect(store.mutate([{ op: "createNode", node }], input("n1-again"))).rejects.toMatchObject({
      status: 409,
    });
    expect(await intents.olderThan(0)).toEqual(["in-flight"]);
    expect((await audit.list({ limit: 10 })).map((e) => e.target).sort()).toEqual(["n1", "t-committed"]);
  });

  it("seeds in UNWIND batches and completes an interrupted seed", async () => {
    const { store } = await started();
    const PATIENTS = 300;
    // interrupted: the shared batches and the first 250 patients stored, then the process died
    const batches = generateGraph({ patients: PATIENTS });
    for (let i = 0; i < 3; i++) {
      const b = batches.next().value!;
      await store.importBatch(b.nodes, b.edges);
    }
    expect(await store.countWhere("Patient")).toBe(250);
    const t0 = performance.now();
    await seedIfEmpty({ graph: store, config: { seedPatients: PATIENTS } }, { progress: false });
    await eventually(
      () => store.countWhere("Patient"),
      (n) => n === PATIENTS,
    );
    const ms = performance.now() - t0;
    // the same graph as one uninterrupted seed (counted on the embedded store)
    const db = openDatabase(":memory:");
    const audit = await createAuditLog(openSqliteRelational(db), db);
    const embedded: GraphStore = createSqliteGraphStore(db, audit);
    await seedStore(embedded, { patients: PATIENTS });
    const [want, got] = [await embedded.counts(), await store.counts()];
    db.close();
    expect(got.nodesByLabel).toEqual(want.nodesByLabel);
    expect(got.edgesByType).toEqual(want.edgesByType);
    expect(got.duplicateIds).toBe(0);
    console.log(`Neo4j: resumed seed of ${PATIENTS - 250} patients in ${(ms / 1000).toFixed(1)} s`);
  }, 300_000);
});
