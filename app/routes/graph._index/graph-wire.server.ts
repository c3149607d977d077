import type { GraphResponse } from "../../../server/graph/model";
import type { VGraph } from "../../components/graph/types";
import { encodeGraph } from "../../components/graph/wire";
import { overviewOf } from "../../lib/graph/overview";
import { slimEdge, slimNode } from "../../lib/graph/slim.server";

const withWire = (graph: VGraph) => ({ graph, wire: encodeGraph(graph) });
type ExplorerGraph = ReturnType<typeof withWire>;

const whole = new WeakMap<GraphResponse, ExplorerGraph>();
const overviews = new WeakMap<GraphResponse, ExplorerGraph>();

/**
 * The explorer's graph of a graph answer, whole or its overview (app/lib/graph/overview.ts), and its
 * wire string, made once per answer object (the graph service hands out one frozen answer per graph).
 */
export function explorerGraph(g: GraphResponse, overview: boolean): ExplorerGraph {
  const kept = (overview ? overviews : whole).get(g);
  if (kept) return kept;
  const made = overview
    ? withWire(overviewOf(explorerGraph(g, false).graph))
    : withWire({ nodes: g.nodes.map(slimNode), edges: g.edges.map(slimEdge) });
  (overview ? overviews : whole).set(g, made);
  return made;
}
