import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Layer } from "../../types";
import type { VGraph } from "./types";
import { decodeGraph, encodeGraph } from "./wire";

const layer = fc.constantFrom<Layer>("l1", "l2", "l3", "l4", "l5");
const text = fc.string({ minLength: 1, maxLength: 12 });

/** graphs as the explorer gets them, and odder ones: ends outside the node list, free ids, captions equal to ids */
const graphs = fc
  .uniqueArray(fc.record({ id: text, label: text, layer, caption: text }), {
    selector: (n) => n.id,
    maxLength: 30,
  })
  .chain((nodes) => {
    const ids = nodes.map((n) => n.id);
    const end = ids.length ? fc.oneof(fc.constantFrom(...ids), text) : text;
    const edge = fc
      .record({ source: end, target: end, type: text, own: fc.option(text, { nil: undefined }) })
      .map(({ source, target, type, own }) => ({
        id: own ?? `${source}:${type}:${target}`,
        source,
        target,
        type,
      }));
    return fc.record({
      nodes: fc
        .constant(nodes)
        .chain((ns) =>
          fc.tuple(...ns.map((n) => fc.boolean().map((same) => (same ? { ...n, caption: n.id } : n)))),
        ),
      edges: fc.array(edge, { maxLength: 60 }),
    });
  }) as fc.Arbitrary<VGraph>;

describe("the explorer's wire string", () => {
  it("holds no quote or backslash (the page escapes each to several bytes), whatever the names", () => {
    fc.assert(
      fc.property(graphs, (g) => {
        const named = (s: string) => s.includes('"') || s.includes("\\");
        const wire = encodeGraph(g);
        if (!g.nodes.some((n) => named(n.id) || named(n.label) || named(n.caption)))
          if (!g.edges.some((e) => named(e.id) || named(e.type) || named(e.source) || named(e.target)))
            expect(/["\\]/.test(wire)).toBe(false);
      }),
    );
  });

  it("keeps separators and escapes inside names, and empty names", () => {
    const g: VGraph = {
      nodes: [
        { id: "a|b~c%7C", label: "", layer: "l1", caption: "" },
        { id: "'7", label: "x%0", layer: "l2", caption: "%0" },
        { id: "2", label: "~", layer: "l3", caption: "2" },
      ],
      edges: [
        { id: "a|b~c%7C::'7", source: "a|b~c%7C", target: "'7", type: "" },
        { id: "own|id", source: "2", target: "elsewhere|~", type: "T~" },
      ],
    };
    expect(decodeGraph(encodeGraph(g))).toEqual(g);
  });

  it("decodes to the very graph it was made from", () => {
    fc.assert(
      fc.property(graphs, (g) => {
        expect(decodeGraph(encodeGraph(g))).toEqual(g);
      }),
    );
  });

  it("names each label and type once and carries generated relationship ids as node indexes", () => {
    const nodes = Array.from({ length: 200 }, (_, i) => ({
      id: `observation-${String(i).padStart(6, "0")}`,
      label: "Observation",
      layer: "l3" as Layer,
      caption: i % 2 ? `Observation ${i}` : `observation-${String(i).padStart(6, "0")}`,
    }));
    const edges = nodes.slice(1).map((n, i) => ({
      id: `${nodes[i].id}:HAS_OBSERVATION:${n.id}`,
      source: nodes[i].id,
      target: n.id,
      type: "HAS_OBSERVATION",
    }));
    const wire = encodeGraph({ nodes, edges });
    expect(wire.split("HAS_OBSERVATION").length - 1).toBe(1);
    expect(wire.startsWith("Observation|l3~HAS_OBSERVATION~")).toBe(true);
    // every node id appears once: relationships refer to them by index
    expect(wire.split("observation-000007").length - 1).toBe(1);
    expect(decodeGraph(wire)).toEqual({ nodes, edges });
  });
});
