import type { LoaderFunctionArgs } from "@remix-run/node";
import { errorInPlace, isApiError } from "../../lib/api-errors.server";
import { slimEdge, slimNode } from "../../lib/graph/slim.server";
import type { VEdge, VNode } from "../../components/graph/types";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES, readerOf } from "../../lib/access.server";

/**
 * Resource route for the explorer's "Expand": the neighbourhood of a node (depth 1 or 2) from the
 * graph service, slimmed to what the canvas draws; a caller's mistake answered in place (errorInPlace).
 */
export type ExpandData =
  { id: string; depth: number; nodes: VNode[]; edges: VEdge[]; truncated: boolean } | { error: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, GRAPH_ROLES);
  const url = new URL(request.url);
  const id = url.searchParams.get("id");
  const depth = url.searchParams.get("depth") === "2" ? 2 : 1;
  try {
    const g = await context.services.graphQueries.expand(id, depth, readerOf(user));
    return {
      id: id ?? "",
      depth,
      nodes: g.nodes.map(slimNode),
      edges: g.edges.map(slimEdge),
      truncated: !!g.meta.truncated,
    } satisfies ExpandData as ExpandData;
  } catch (e) {
    if (isApiError(e) && e.status < 500) return errorInPlace(e);
    throw e;
  }
}
