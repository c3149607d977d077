import type { LoaderFunctionArgs } from "@remix-run/node";
import { errorInPlace, isApiError } from "../../lib/api-errors.server";
import { slimEdge, slimNode } from "../../lib/graph/slim.server";
import { GRAPH_ROLES, readerOf } from "../../lib/access.server";
import { requireRole } from "../../session.server";
import type { VEdge, VNode } from "../../components/graph/types";
import { encodeGraph } from "../../components/graph/wire";
import { explorerQuery, explorerScope } from "../graph._index/explorer-scope.server";
import { explorerGraph } from "../graph._index/graph-wire.server";

/**
 * Resource route for the explorer's drawing (decision 0027): the graph of the page's query (see
 * ../graph._index/explorer-scope.server.ts) as the wire string of app/components/graph/wire.ts.
 * `?focus=<id>` adds the node's neighbourhood, and `focus` is the id when that worked. A failure
 * comes back as `{ error }` so that the explorer shows it in place with a retry.
 */
export type DrawingData =
  { graph: string; focus: string | null; focusError: string | null } | { error: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, GRAPH_ROLES);
  const reader = readerOf(user);
  const q = explorerQuery(new URL(request.url));
  const { graphQueries } = context.services;
  try {
    const { g } = await explorerScope(graphQueries, q, reader);
    let graph = explorerGraph(g, q.overview).wire;
    let focus: string | null = null;
    let focusError: string | null = null;
    if (q.focus) {
      try {
        const around = await graphQueries.expand(q.focus, 1, reader);
        const nodes: VNode[] = g.nodes.map(slimNode);
        const edges: VEdge[] = g.edges.map(slimEdge);
        const seen = new Set(nodes.map((n) => n.id));
        const seenEdges = new Set(edges.map((e) => e.id));
        for (const n of around.nodes) if (!seen.has(n.id)) nodes.push(slimNode(n));
        for (const e of around.edges) if (!seenEdges.has(e.id)) edges.push(slimEdge(e));
        graph = encodeGraph({ nodes, edges });
        focus = q.focus;
      } catch (e) {
        if (!isApiError(e) || e.status >= 500) throw e;
        focusError = e.message;
      }
    }
    return { graph, focus, focusError } satisfies DrawingData as DrawingData;
  } catch (e) {
    if (isApiError(e) && e.status < 500) return errorInPlace(e);
    // in place with a retry, not the page's error boundary: the page around it still works
    console.error(e);
    return Response.json({ error: "The drawing could not be loaded." } satisfies DrawingData, {
      status: 500,
    });
  }
}
