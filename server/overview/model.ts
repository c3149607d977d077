/** The overview's answer (GET /api/overview): the persona, its layers and its signals. */
import { z } from "zod";
import { ROLES } from "../auth/personas";
import { LAYERS } from "../graph";

const tone = z.enum(["info", "ok", "warn", "danger"]);
export type Tone = z.infer<typeof tone>;

const overviewSignal = z.object({
  id: z.string(),
  label: z.string(),
  value: z.number(),
  tone,
  detail: z.string().optional(),
  href: z.string().optional(),
  /** where the count was read: the list behind `href` reads the same */
  source: z.enum(["graph", "access-body", "dataspace", "catalogue", "trust-center"]),
});
export type OverviewSignal = z.infer<typeof overviewSignal>;

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

const count = z.number().int().min(0);
const role = z.enum(ROLES);
export const overviewSchema = z.object({
  /** `graph`: the graph explorer's `?persona=` that shows these layers, null when it has none */
  persona: z.object({ role, label: z.string(), focus: z.string(), graph: z.string().nullable() }),
  personas: z.array(z.object({ role, label: z.string() })),
  organisation: z.string().nullable(),
  layers: z.array(z.object({ layer: z.enum(LAYERS), name: z.string(), nodes: count, links: count })),
  totals: z.object({ nodes: count, links: count, crossLayerLinks: count }),
  signals: z.array(overviewSignal),
  accessBody: z.enum(["available", "unavailable", "not-applicable"]),
  notes: z.array(z.string()),
  graphVersion: z.number(),
  generatedAt: z.iso.datetime(),
});
export type Overview = z.infer<typeof overviewSchema>;

export const DAY = 86_400_000;
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
