import type { GraphResponse } from "../../../server/graph/model";
import { encodeGraph } from "../../components/graph/wire";
import { slimEdge, slimNode } from "../../lib/graph/slim.server";

/**
 * The explorer's wire string of a graph answer, made once per answer object: the graph service
 * hands out the same frozen answer while the graph is unchanged (per version and visibility class),
 * so a page render after the first costs no slimming and no serialising of the graph.
 */
const wires = new WeakMap<GraphResponse, string>();

export function graphWire(g: GraphResponse): string {
  let wire = wires.get(g);
  if (wire === undefined) {
    wire = encodeGraph({ nodes: g.nodes.map(slimNode), edges: g.edges.map(slimEdge) });
    wires.set(g, wire);
  }
  return wire;
}
