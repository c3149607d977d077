import type { LoaderFunctionArgs } from "@remix-run/node";
import { errorInPlace, isApiError } from "../../lib/api-errors.server";
import { NODE_RELATIONSHIP_LIMIT, readerOf } from "../../../server/graph/service";
import type { Properties } from "../../../server/graph/model";
import { captionOf, slimNode } from "../../lib/graph/slim.server";
import type { VNode } from "../../components/graph/types";
import { requireRole } from "../../session.server";
import { GRAPH_ROLES } from "../../lib/access.server";

/** Resource route for the node inspector: a node, its properties and its relationships grouped by type. */
export interface RelationshipGroup {
  type: string;
  direction: "out" | "in";
  nodes: VNode[];
}
export type NodeData =
  | {
      node: VNode & { properties: Properties };
      groups: RelationshipGroup[];
      relationshipCount: number;
      truncated: boolean;
    }
  | { error: string; id: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, GRAPH_ROLES);
  const id = new URL(request.url).searchParams.get("id");
  try {
    const n = await context.services.graphQueries.node(id, readerOf(user));
    const groups = new Map<string, RelationshipGroup>();
    for (const r of n.relationships) {
      const key = `${r.direction} ${r.type}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { type: r.type, direction: r.direction, nodes: [] }));
      g.nodes.push(slimNode(r.node));
    }
    return {
      node: { id: n.id, label: n.label, layer: n.layer, caption: captionOf(n), properties: n.properties },
      groups: [...groups.values()].sort(
        (a, b) => a.type.localeCompare(b.type) || a.direction.localeCompare(b.direction),
      ),
      relationshipCount: n.relationshipCount,
      truncated: n.relationships.length >= NODE_RELATIONSHIP_LIMIT,
    } satisfies NodeData as NodeData;
  } catch (e) {
    // the API's status (400 without an id, 404 for one this caller may not see), with the message in place
    if (isApiError(e) && e.status < 500) return errorInPlace(e, { id: id ?? "" });
    throw e;
  }
}
