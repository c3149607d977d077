import { expect, it } from "vitest";
import type { AuditLog } from "../../server/audit/log";
import type { EdgeRecord, NodeRecord } from "../../server/graph/model";
import type { GraphStore, NodeQuery } from "../../server/graph/store";

/**
 * The behaviour every GraphStore adapter must show. Run against the embedded SQLite store always
 * and against Neo4j when NEO4J_URI is set (graph-store.test.ts). `fresh` gives an empty store.
 */
export function graphStoreContract(
  fresh: () => Promise<{ store: GraphStore; audit: AuditLog; cleanup: () => Promise<void> }>,
) {
  const nodes: NodeRecord[] = [
    {
      id: "participant-a",
      label: "Participant",
      layer: "l1",
      properties: { displayName: "A", did: "did:web:a.example" },
    },
    {
      id: "dataset-x",
      label: "HealthDataset",
      layer: "l2",
      properties: { title: "X", holder: "a", recordCount: 2 },
    },
    {
      id: "dataset-y",
      label: "HealthDataset",
      layer: "l2",
      properties: { title: "Y", holder: "b", recordCount: 1 },
    },
    {
      id: "patient-1",
      label: "Patient",
      layer: "l3",
      properties: { name: "P One", holder: "a", tags: ["x", "y"] },
    },
    { id: "patient-2", label: "Patient", layer: "l3", properties: { name: "P Two", holder: "a" } },
    { id: "condition-1", label: "Condition", layer: "l3", properties: { code: "44054006", active: true } },
    { id: "snomed-44054006", label: "SnomedConcept", layer: "l5", properties: { code: "44054006" } },
  ];
  const edges: EdgeRecord[] = [
    { id: "e1", source: "participant-a", target: "dataset-x", type: "PUBLISHES" },
    { id: "e2", source: "dataset-x", target: "patient-1", type: "INCLUDES" },
    { id: "e3", source: "patient-1", target: "condition-1", type: "HAS_CONDITION" },
    { id: "e4", source: "condition-1", target: "snomed-44054006", type: "CODED_BY" },
    { id: "e5", source: "dataset-x", target: "patient-2", type: "INCLUDES" },
  ];

  async function seeded() {
    const s = await fresh();
    await s.store.importBatch(nodes.slice(0, 4), edges.slice(0, 2));
    await s.store.importBatch(nodes.slice(4), edges.slice(2));
    return s;
  }

  it("imports batches idempotently and counts per layer", async () => {
    const { store, cleanup } = await seeded();
    try {
      expect(await store.countNodes()).toBe(7);
      expect(await store.countNodes(["l3"])).toBe(3);
      await store.importBatch(nodes, edges);
      expect(await store.countNodes()).toBe(7);
    } finally {
      await cleanup();
    }
  });

  it("keeps the last of a node or an edge named twice in one batch, as when they are written one after the other", async () => {
    const { store, cleanup } = await fresh();
    try {
      const renamed = { ...nodes[0]!, properties: { displayName: "A again", did: "did:web:a.example" } };
      const moved = { ...edges[0]!, target: "dataset-y" };
      await store.importBatch([nodes[0]!, nodes[1]!, nodes[2]!, renamed], [edges[0]!, moved]);
      expect(await store.countNodes()).toBe(3);
      expect((await store.getNode("participant-a"))!.properties.displayName).toBe("A again");
      const out = await store.relationships({ id: "participant-a", direction: "out" });
      expect(out.map((r) => [r.id, r.node.id])).toEqual([["e1", "dataset-y"]]);
    } finally {
      await cleanup();
    }
  });

  it("samples within the limit, spread across layers, with only edges among returned nodes", async () => {
    const { store, cleanup } = await seeded();
    try {
      const g = await store.sampleGraph(["l1", "l2", "l3", "l5"], 4, "all");
      expect(g.nodes.length).toBe(4);
      expect(new Set(g.nodes.map((n) => n.layer)).size).toBe(4);
      const ids = new Set(g.nodes.map((n) => n.id));
      for (const e of g.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
      expect(g.meta).toMatchObject({
        layer: "all",
        totalNodes: 7,
        totalEdges: 5,
        returnedNodes: 4,
        truncated: true,
      });
      const l3 = await store.sampleGraph(["l3"], 1000, "l3");
      expect(l3.nodes.map((n) => n.id)).toEqual(["patient-1", "patient-2", "condition-1"]);
      expect(l3.meta.totalEdges).toBe(1);
      expect(l3.edges.map((e) => e.id)).toEqual(["e3"]);
    } finally {
      await cleanup();
    }
  });

  it("keeps property types and finds nodes by exact property values", async () => {
    const { store, cleanup } = await seeded();
    try {
      const p = await store.getNode("patient-1");
      expect(p).toEqual({
        id: "patient-1",
        label: "Patient",
        layer: "l3",
        properties: { name: "P One", holder: "a", tags: ["x", "y"] },
      });
      expect((await store.getNode("condition-1"))?.properties.active).toBe(true);
      expect(await store.getNode("nope")).toBeNull();
      expect((await store.findNodes({ label: "Patient", where: { holder: "a" } })).map((n) => n.id)).toEqual([
        "patient-1",
        "patient-2",
      ]);
      expect((await store.findNodes({ label: "Patient", limit: 1, offset: 1 })).map((n) => n.id)).toEqual([
        "patient-2",
      ]);
      // keyset pages: the nodes after the last one of the page before, in insertion order
      const ids = async (q: Omit<NodeQuery, "label">) =>
        (await store.findNodes({ label: "Patient", ...q })).map((n) => n.id);
      expect(await ids({ limit: 1 })).toEqual(["patient-1"]);
      expect(await ids({ limit: 1, after: "patient-1" })).toEqual(["patient-2"]);
      expect(await ids({ where: { holder: "a" }, after: "patient-2" })).toEqual([]);
      expect(await store.countWhere("HealthDataset", { holder: "b" })).toBe(1);
      expect(await store.countWhere("Condition", { active: true })).toBe(1);
    } finally {
      await cleanup();
    }
  });

  it("lists relationships by direction and type, and expands neighbourhoods by depth", async () => {
    const { store, cleanup } = await seeded();
    try {
      const out = await store.relationships({ id: "dataset-x", direction: "out", types: ["INCLUDES"] });
      expect(out.map((r) => r.node.id).sort()).toEqual(["patient-1", "patient-2"]);
      const inbound = await store.relationships({ id: "dataset-x", direction: "in" });
      expect(inbound).toEqual([expect.objectContaining({ type: "PUBLISHES", direction: "in", id: "e1" })]);
      const d1 = await store.expand("patient-1", 1, 100);
      expect(d1!.nodes.map((n) => n.id).sort()).toEqual(["condition-1", "dataset-x", "patient-1"]);
      const d2 = await store.expand("patient-1", 2, 100);
      expect(d2!.nodes.length).toBe(6);
      const capped = await store.expand("patient-1", 3, 3);
      expect(capped!.nodes.length).toBe(3);
      expect(capped!.meta.truncated).toBe(true);
      expect(await store.expand("missing", 1, 10)).toBeNull();
    } finally {
      await cleanup();
    }
  });

  it("expands a hub to its first `limit - 1` neighbours only (the next hop bounded in the query), and finds the edges among nodes of high degree", async () => {
    const { store, cleanup } = await fresh();
    try {
      // a concept coded by 300 patients, and a dataset including them: both above the SQL stores'
      // degree cap, so the edges among a sample are found from the other end and by pair probes
      const hubs: NodeRecord[] = [
        { id: "dataset-hub", label: "HealthDataset", layer: "l2", properties: {} },
        { id: "snomed-hub", label: "SnomedConcept", layer: "l5", properties: {} },
      ];
      const patients: NodeRecord[] = Array.from({ length: 300 }, (_, i) => ({
        id: `patient-${String(i).padStart(4, "0")}`,
        label: "Patient",
        layer: "l3",
        properties: {},
      }));
      await store.importBatch([...hubs, ...patients], []);
      // edge ids that sort against the patients' order: a next hop taken in edge order is not the first by id
      const edges: EdgeRecord[] = patients.flatMap((p, i) => [
        { id: `z${999 - i}`, source: p.id, target: "snomed-hub", type: "CODED_BY" },
        { id: `y${999 - i}`, source: "dataset-hub", target: p.id, type: "INCLUDES" },
      ]);
      edges.push({ id: "x1", source: "dataset-hub", target: "snomed-hub", type: "CODED_BY" });
      await store.importBatch([], edges);
      const g = (await store.expand("snomed-hub", 1, 20))!;
      expect(g.meta).toMatchObject({ truncated: true, returnedNodes: 20 });
      expect(g.nodes.map((n) => n.id)).toEqual([
        "snomed-hub",
        "dataset-hub",
        ...patients.slice(0, 18).map((p) => p.id),
      ]);
      // every edge among the 20, from each end and between the two hubs
      expect(g.edges.length).toBe(18 * 2 + 1);
      const sample = await store.sampleGraph(["l2", "l3", "l5"], 40, "x");
      const ids = new Set(sample.nodes.map((n) => n.id));
      const among = edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map((e) => e.id);
      expect(sample.edges.map((e) => e.id).sort()).toEqual(among.sort());
      expect(among).toContain("x1");
    } finally {
      await cleanup();
    }
  });

  it("applies mutations atomically with one audit entry, and bumps the version", async () => {
    const { store, audit, cleanup } = await seeded();
    try {
      const v0 = store.version();
      const entry = await store.mutate(
        [
          {
            op: "createNode",
            node: { id: "dataset-z", label: "HealthDataset", layer: "l2", properties: { title: "Z" } },
          },
          {
            op: "createEdge",
            edge: { id: "e9", source: "participant-a", target: "dataset-z", type: "PUBLISHES" },
          },
          { op: "updateNode", id: "dataset-x", properties: { title: "X2" } },
        ],
        { action: "test.create", actor: "tester", target: "dataset-z", kind: "catalogue" },
      );
      expect(entry).toMatchObject({ action: "test.create", actor: "tester", outcome: "success" });
      expect(store.version()).toBeGreaterThan(v0);
      expect((await store.getNode("dataset-x"))?.properties.title).toBe("X2");
      expect((await store.relationships({ id: "dataset-z" })).length).toBe(1);

      const before = await audit.count();
      await expect(
        store.mutate(
          [
            {
              op: "createNode",
              node: { id: "dataset-w", label: "HealthDataset", layer: "l2", properties: { title: "W" } },
            },
            {
              op: "createNode",
              node: { id: "dataset-z", label: "HealthDataset", layer: "l2", properties: { title: "dup" } },
            },
          ],
          { action: "test.dup", actor: "tester", target: "dataset-w", kind: "catalogue" },
        ),
      ).rejects.toMatchObject({ status: 409 });
      expect(await store.getNode("dataset-w")).toBeNull();
      expect(await audit.count()).toBe(before);

      await store.mutate([{ op: "deleteNode", id: "dataset-z" }], {
        action: "test.delete",
        actor: "tester",
        target: "dataset-z",
        kind: "catalogue",
      });
      expect(await store.getNode("dataset-z")).toBeNull();
      expect(await store.relationships({ id: "participant-a", direction: "out" })).toHaveLength(1);
    } finally {
      await cleanup();
    }
  });

  it("counts labels, relationship types and property keys for validation", async () => {
    const { store, cleanup } = await seeded();
    try {
      const c = await store.counts();
      expect(c.nodesByLabel).toMatchObject({
        Participant: 1,
        HealthDataset: 2,
        Patient: 2,
        Condition: 1,
        SnomedConcept: 1,
      });
      expect(c.edgesByType).toMatchObject({ PUBLISHES: 1, INCLUDES: 2, HAS_CONDITION: 1, CODED_BY: 1 });
      expect(c.propertyKeysByLabel.Patient).toEqual(["holder", "name", "tags"]);
      expect(c.danglingEdges).toBe(0);
      expect(await store.ping(1000)).toBe(true);
    } finally {
      await cleanup();
    }
  });
}
