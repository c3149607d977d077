import { describe, expect, it } from "vitest";
import type { Layer } from "../../types";
import type { VEdge, VNode } from "../../components/graph/types";
import { overviewOf } from "./overview";

const node = (id: string, layer: Layer, caption = id, label = "Thing"): VNode => ({
  id,
  layer,
  caption,
  label,
});
const edge = (source: string, target: string): VEdge => ({
  id: `${source}-${target}`,
  source,
  target,
  type: "R",
});

describe("the explorer's overview", () => {
  it("keeps the best-connected nodes of each layer and the relationships among them", () => {
    const nodes = [
      node("hub", "l3"),
      node("mid", "l3"),
      node("leaf1", "l3"),
      node("leaf2", "l3"),
      node("ds", "l1"),
      node("lonely", "l1"),
    ];
    const edges = [
      edge("hub", "mid"),
      edge("hub", "leaf1"),
      edge("hub", "leaf2"),
      edge("mid", "leaf1"),
      edge("ds", "hub"),
      edge("ds", "leaf2"),
    ];
    const o = overviewOf({ nodes, edges }, 2);
    // hub has 4 relationships; mid, leaf1 and leaf2 have 2 each: the tie goes to the caption
    expect(o.nodes.map((n) => n.id)).toEqual(["ds", "lonely", "hub", "leaf1"]);
    expect(o.edges.map((e) => e.id).sort()).toEqual(["ds-hub", "hub-leaf1"]);
  });

  it("skips a node that reads the same as one already chosen, so each label says something new", () => {
    const nodes = [
      node("c1", "l3", "Diabetes", "Condition"),
      node("c2", "l3", "Diabetes", "Condition"),
      node("c3", "l3", "Asthma", "Condition"),
      node("p1", "l3", "Diabetes", "Patient"),
    ];
    const o = overviewOf({ nodes, edges: [edge("c1", "c3"), edge("c2", "c3")] }, 3);
    expect(o.nodes.map((n) => n.id)).toEqual(["c3", "c1", "p1"]);
  });

  it("is at most perLayer nodes per layer, whatever the sample", () => {
    const nodes = Array.from({ length: 1000 }, (_, i) =>
      node(`n${i}`, (["l1", "l2", "l3", "l4", "l5"] as const)[i % 5]),
    );
    const edges = nodes.slice(1).map((n, i) => edge(nodes[i].id, n.id));
    const o = overviewOf({ nodes, edges });
    expect(o.nodes.length).toBe(40);
    for (const l of ["l1", "l2", "l3", "l4", "l5"])
      expect(o.nodes.filter((n) => n.layer === l).length).toBe(8);
  });
});
