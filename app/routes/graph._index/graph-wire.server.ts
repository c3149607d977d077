import type { GraphResponse } from "../../../server/graph/model";
import type { VGraph } from "../../components/graph/types";
import { encodeGraph } from "../../components/graph/wire";
import { overviewOf } from "../../lib/graph/overview";
import { slimEdge, slimNode } from "../../lib/graph/slim.server";

/**
 * The explorer's graph of a graph answer, whole or its overview (app/lib/graph/overview.ts), and its
 * wire string, made once per answer object: the graph service hands out the same frozen answer while
 * the graph is unchanged (per version and visibility class), so a page render after the first costs no
 * slimming, no choosing and no serialising of the graph.
 */
export interface ExplorerGraph {
  graph: VGraph;
  wire: string;
}

const whole = new WeakMap<GraphResponse, ExplorerGraph>();
const overviews = new WeakMap<GraphResponse, ExplorerGraph>();

export function explorerGraph(g: GraphResponse, overview: boolean): ExplorerGraph {
  const kept = (overview ? overviews : whole).get(g);
  if (kept) return kept;
  const made = overview
    ? withWire(overviewOf(explorerGraph(g, false).graph))
    : withWire({ nodes: g.nodes.map(slimNode), edges: g.edges.map(slimEdge) });
  (overview ? overviews : whole).set(g, made);
  return made;
}

const withWire = (graph: VGraph): ExplorerGraph => ({ graph, wire: encodeGraph(graph) });
