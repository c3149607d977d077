import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useLocation } from "@remix-run/react";
import { PERSONAS } from "../../../server/auth/personas";
import { personaLayers } from "../../../server/graph/service";
import { roleLabel } from "../../components/ui/labels";
import { GraphExplorer } from "../../components/graph/GraphExplorer";
import { useDrawing } from "../../components/graph/use-drawing";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES } from "../../lib/access.server";
import { viewerOf } from "../../../server/privacy/policy";
import { explorerQuery, explorerScope } from "./explorer-scope.server";
import { explorerGraph } from "./graph-wire.server";

/**
 * The explorer's frame: its controls, the scope's counts and error. The drawing's graph is not in
 * the document: the explorer loads it after hydration from /graph/drawing with the page's query
 * (decision 0027), so the page's render does not pass a thousand nodes through its serialiser.
 */
/**
 * The persona filter: one entry per demonstration persona, named by its role and organisation (the
 * API also takes the aliases of PERSONA_LAYERS — operator, hdab, holder, user, trust — which named the
 * same personas a second time); the two patients share one entry, as they share one scope.
 */
const PERSONA_FILTER = PERSONAS.map((p) => {
  const patient = p.roles.includes("PATIENT");
  const value = patient ? "patient" : p.username;
  return {
    value,
    label: patient ? "Patient" : `${roleLabel(p.roles[0])} · ${p.organisation}`,
    layers: personaLayers(value) ?? [],
  };
}).filter((p, i, all) => all.findIndex((o) => o.value === p.value) === i);

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, GRAPH_ROLES);
  const q = explorerQuery(new URL(request.url));
  const { g, error, layer, persona } = await explorerScope(context.services.graphQueries, q, viewerOf(user));
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
