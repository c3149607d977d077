import type { GraphEdge, GraphNode } from "../../../server/graph/model";
import type { VEdge, VNode } from "./types";

const CAPTION_KEYS = [
  "name",
  "title",
  "displayName",
  "display",
  "conceptName",
  "code",
  "resourceId",
] as const;

export function captionOf(n: GraphNode): string {
  for (const k of CAPTION_KEYS) {
    const v = n.properties?.[k];
    if (typeof v === "string" && v.trim()) return v.length > 80 ? `${v.slice(0, 77)}…` : v;
    if (typeof v === "number") return String(v);
  }
  return n.id;
}

export const slimNode = (n: GraphNode): VNode => ({
  id: n.id,
  label: n.label,
  layer: n.layer,
  caption: captionOf(n),
});
export const slimEdge = (e: GraphEdge): VEdge => ({
  id: e.id,
  source: e.source,
  target: e.target,
  type: e.type,
});

/** the roles that may open the graph views: the route table's `staff` list (everyone but patients) */
export const GRAPH_ROLES = [
  "CONNECTOR_ADMIN",
  "HDAB_AUTHORITY",
  "DATA_HOLDER",
  "DATA_USER",
  "TRUST_CENTER_OPERATOR",
  "CONNECTOR_USER_PARTICIPANT",
] as const;
