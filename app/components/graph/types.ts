import type { Layer } from "../../types";

/** What the explorer draws: the spec's GraphNode without its properties (the inspector loads those). */
export interface VNode {
  id: string;
  label: string;
  layer: Layer;
  /** a human caption: name, title, display text or the id */
  caption: string;
}

export interface VEdge {
  id: string;
  source: string;
  target: string;
  type: string;
}

export interface VGraph {
  nodes: VNode[];
  edges: VEdge[];
}

export const LAYER_OPTIONS = ["all", "l1", "l2", "l3", "l4", "l5"] as const;
export const LIMIT_OPTIONS = [100, 250, 500, 1000] as const;
export const LIMIT_DEFAULT = 1000;
/** one step of zoom, by the buttons over the drawing and by the keys on it alike */
export const ZOOM_STEP = 1.25;
export const ALL_LAYERS: readonly Layer[] = ["l1", "l2", "l3", "l4", "l5"];

/** the layer colours of app.css (--l1 … --l5); the canvas reads the CSS variables and falls back to these */
export const LAYER_COLOURS: Record<Layer, string> = {
  l1: "#7c3aed",
  l2: "#0891b2",
  l3: "#dc2626",
  l4: "#ea580c",
  l5: "#16a34a",
};
