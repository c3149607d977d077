/** The overview's answer (GET /api/overview): the persona, its layers and its signals. */
import type { Role } from "../auth/personas";
import type { Layer } from "../graph";

export type Tone = "info" | "ok" | "warn" | "danger";

export interface OverviewSignal {
  id: string;
  label: string;
  value: number;
  tone: Tone;
  detail?: string;
  href?: string;
  /** where the count was read: the list behind `href` reads the same */
  source: "graph" | "access-body" | "dataspace" | "catalogue" | "trust-center";
}

/** one home card, read from `source`; `href` is the list that reads the same */
export const signal = (
  source: OverviewSignal["source"],
  id: string,
  label: string,
  value: number,
  tone: Tone,
  href?: string,
  detail?: string,
): OverviewSignal => ({
  id,
  label,
  value,
  tone,
  source,
  ...(href ? { href } : {}),
  ...(detail ? { detail } : {}),
});

export interface Overview {
  /** `graph`: the graph explorer's `?persona=` that shows these layers, null when it has none */
  persona: { role: Role; label: string; focus: string; graph: string | null };
  personas: { role: Role; label: string }[];
  organisation: string | null;
  layers: { layer: Layer; name: string; nodes: number; links: number }[];
  totals: { nodes: number; links: number; crossLayerLinks: number };
  signals: OverviewSignal[];
  accessBody: "available" | "unavailable" | "not-applicable";
  notes: string[];
  graphVersion: number;
  generatedAt: string;
}

export const DAY = 86_400_000;
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
