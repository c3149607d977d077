import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";
import { GraphExplorer } from "../../components/graph/GraphExplorer";
import { useDrawing } from "../../components/graph/use-drawing";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES, readerOf } from "../../lib/access.server";
import { explorerQuery, explorerScope, PERSONA_FILTER } from "./explorer-scope.server";
import { explorerGraph } from "./graph-wire.server";

/**
 * The explorer's frame: its controls, the scope's counts and error. The drawing's graph is not in
 * the document: the explorer loads it after hydration from /graph/drawing (decision 0027).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, GRAPH_ROLES);
  const q = explorerQuery(new URL(request.url));
  const { g, error, layer, persona } = await explorerScope(context.services.graphQueries, q, readerOf(user));
  // the overview's counts are those of what it draws (the drawing's route makes the same, once per answer)
  const drawn = explorerGraph(g, q.overview).graph;
  return {
    meta: {
      layer: g.meta.layer,
      totalNodes: g.meta.totalNodes,
      totalEdges: g.meta.totalEdges,
      returnedNodes: drawn.nodes.length,
      returnedEdges: drawn.edges.length,
    },
    overview: q.overview,
    layer,
    persona,
    limit: q.limit,
    personas: PERSONA_FILTER,
    /** the requested focus: the drawing's answer says whether its neighbourhood could be drawn */
    focus: q.focus,
    error,
  };
}

export default function GraphExplorerRoute() {
  const data = useLoaderData<typeof loader>();
  const drawing = useDrawing(useLocation().search);
  return <GraphExplorer {...data} drawing={drawing} />;
}
