import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useMemo } from "react";
import type { GraphResponse } from "../../../server/graph/model";
import { GRAPH_LIMIT_MAX, PERSONA_LAYERS } from "../../../server/graph/service";
import { isApiError } from "../../../server/http/errors";
import { GraphExplorer } from "../../components/graph/GraphExplorer";
import { slimEdge, slimNode } from "../../lib/graph/slim.server";
import { LIMIT_DEFAULT, type VEdge, type VNode } from "../../components/graph/types";
import { decodeGraph, encodeGraph } from "../../components/graph/wire";
import { graphWire } from "./graph-wire.server";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES } from "../../lib/access.server";
import { viewerOf } from "../../../server/privacy/policy";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, GRAPH_ROLES);
  const viewer = viewerOf(user);
  const url = new URL(request.url);
  const layer = url.searchParams.get("layer") || "all";
  const persona = url.searchParams.get("persona") || "";
  const rawLimit = Number.parseInt(url.searchParams.get("limit") ?? "", 10);
  const limit =
    Number.isFinite(rawLimit) && rawLimit > 0 ? Math.min(rawLimit, GRAPH_LIMIT_MAX) : LIMIT_DEFAULT;
  const focus = url.searchParams.get("focus") || null;
  const personas = Object.entries(PERSONA_LAYERS).map(([value, layers]) => ({ value, layers }));
  const { graphQueries } = context.services;

  let error: string | null = null;
  let scopeOk = true;
  let g: GraphResponse;
  try {
    g = await graphQueries.graph({ layer, persona: persona || null, limit }, viewer);
  } catch (e) {
    if (!isApiError(e) || e.status >= 500) throw e;
    error = e.message;
    scopeOk = false;
    g = await graphQueries.graph({ layer: "all", persona: null, limit }, viewer);
  }
  let graph = graphWire(g);

  // ?focus=<id> (e.g. from a dataset page): draw the node's neighbourhood too and select it
  let focusId: string | null = null;
  if (focus) {
    try {
      const around = await graphQueries.expand(focus, 1, viewer);
      const nodes: VNode[] = g.nodes.map(slimNode);
      const edges: VEdge[] = g.edges.map(slimEdge);
      const seen = new Set(nodes.map((n) => n.id));
      const seenEdges = new Set(edges.map((e) => e.id));
      for (const n of around.nodes) if (!seen.has(n.id)) nodes.push(slimNode(n));
      for (const e of around.edges) if (!seenEdges.has(e.id)) edges.push(slimEdge(e));
      graph = encodeGraph({ nodes, edges });
      focusId = focus;
    } catch (e) {
      if (!isApiError(e) || e.status >= 500) throw e;
      error = e.message;
    }
  }

  return {
    /** the drawing's graph as one string (app/components/graph/wire.ts) */
    graph,
    meta: {
      layer: g.meta.layer,
      totalNodes: g.meta.totalNodes,
      totalEdges: g.meta.totalEdges,
      returnedNodes: g.nodes.length,
      returnedEdges: g.edges.length,
    },
    layer: scopeOk ? layer : "all",
    persona: scopeOk ? persona : "",
    limit,
    personas,
    focus: focusId,
    error,
  };
}

export default function GraphExplorerRoute() {
  const data = useLoaderData<typeof loader>();
  const graph = useMemo(() => decodeGraph(data.graph), [data.graph]);
  return <GraphExplorer {...data} graph={graph} />;
}
