import type { GraphEdge, GraphNode } from "../../../server/graph/model";
import type { VEdge, VNode } from "../../components/graph/types";
import { clip } from "../../components/ui/format";

const CAPTION_KEYS = ["name", "title", "displayName", "display", "permitNumber"] as const;

const short = (v: string) => clip(v, 80);
const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : null);

/** a human caption for the drawing and the inspector: a name or title, else a label-specific rule, else the id */
export function captionOf(n: GraphNode): string {
  const p = n.properties ?? {};
  for (const k of CAPTION_KEYS) {
    const v = text(p[k]);
    if (v) return short(v);
  }
  const date = (v: unknown) => text(v)?.slice(0, 10) ?? null;
  switch (n.label) {
    case "Encounter": {
      const kind = text(p.classDisplay) ?? "encounter";
      return short(
        [kind.charAt(0).toUpperCase() + kind.slice(1), date(p.periodStart)].filter(Boolean).join(" "),
      );
    }
    case "Consent":
      return short(`Consent ${text(p.studyId) ?? ""} (${text(p.status) ?? "unknown"})`);
    case "OdrlPolicy":
      return text(p.policyType) ? `${text(p.policyType)} policy ${n.id.replace(/^policy-/, "")}` : n.id;
  }
  const code = text(p.code) ?? (typeof p.code === "number" ? String(p.code) : null);
  return code ? `${n.label} ${code}` : n.id;
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
