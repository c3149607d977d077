import {
  forceLink,
  forceManyBody,
  forceSimulation,
  forceX,
  forceY,
  type ForceLink,
  type ForceManyBody,
  type ForceX,
  type ForceY,
  type Simulation,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from "d3-force";
import { ALL_LAYERS, type VNode } from "./types";

/** What the layout needs of a node (the layout thread holds only this: layout.worker.ts). */
export interface LayoutNode extends SimulationNodeDatum {
  id: string;
  layer: VNode["layer"];
  r: number;
  degree: number;
}

/** A node as the explorer's drawing holds it: its layout's fields and what is drawn of it. */
export interface SimNode extends LayoutNode, VNode {}

export interface LayoutLink extends SimulationLinkDatum<LayoutNode> {
  source: LayoutNode | string;
  target: LayoutNode | string;
}

export interface SimLink extends LayoutLink {
  id: string;
  type: string;
  source: SimNode | string;
  target: SimNode | string;
}

/**
 * The force simulation (stopped: the layout thread steps it, layout.worker.ts), its forces' strengths
 * set by groupByLayer for each drawing. Hubs (a dataset with all its patients, a code with all its
 * uses) get longer, weaker spokes, so that charge can spread their neighbours instead of packing them
 * into a ring.
 */
export function createSimulation() {
  const linkForce = forceLink<LayoutNode, LayoutLink>([])
    .id((d) => d.id)
    .distance((l) => {
      const s = l.source as LayoutNode;
      const t = l.target as LayoutNode;
      return 16 + s.r + t.r + 2.2 * Math.sqrt(Math.max(s.degree, t.degree));
    });
  const sim = forceSimulation<LayoutNode, LayoutLink>([])
    .force("link", linkForce)
    .force("charge", forceManyBody<LayoutNode>().theta(0.9).distanceMax(420))
    .force("x", forceX<LayoutNode>())
    .force("y", forceY<LayoutNode>())
    .velocityDecay(0.38)
    .alphaDecay(0.03)
    .stop();
  return { sim, linkForce };
}

/** the overview's layered layout: one column per layer (L1 left), the best-connected node on top */
const COLUMN = 150;
const ROW = 36;

/**
 * A small drawing (the overview) is laid out by layer: one column per layer, each layer's nodes one
 * below the other (neighbouring columns half a row apart, so that labels written beside their nodes
 * never meet), placed exactly (no charge, no pull of relationships). A large one is the force layout.
 */
export function groupByLayer(sim: Simulation<LayoutNode, LayoutLink>, nodes: LayoutNode[], grouped: boolean) {
  const fx = sim.force("x") as ForceX<LayoutNode>;
  const fy = sim.force("y") as ForceY<LayoutNode>;
  const link = sim.force("link") as ForceLink<LayoutNode, LayoutLink>;
  const charge = sim.force("charge") as ForceManyBody<LayoutNode>;
  if (!grouped) {
    fx.x(0).strength(0.045);
    fy.y(0).strength(0.045);
    link.strength(
      (l) => 0.8 / Math.sqrt(Math.max(1, (l.source as LayoutNode).degree, (l.target as LayoutNode).degree)),
    );
    charge.strength(-38);
    return;
  }
  const place = new Map<LayoutNode, { x: number; y: number }>();
  ALL_LAYERS.forEach((layer, column) => {
    const list = nodes.filter((n) => n.layer === layer).sort((a, b) => b.degree - a.degree);
    list.forEach((n, row) =>
      place.set(n, { x: (column - 2) * COLUMN, y: (row - 3.5) * ROW + (column % 2) * (ROW / 2) }),
    );
  });
  for (const [n, p] of place) {
    n.x ??= p.x;
    n.y ??= p.y;
  }
  fx.x((n) => place.get(n)?.x ?? 0).strength(0.6);
  fy.y((n) => place.get(n)?.y ?? 0).strength(0.6);
  link.strength(0);
  charge.strength(0);
}
