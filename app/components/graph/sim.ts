import {
  forceLink,
  forceManyBody,
  forceSimulation,
  forceX,
  forceY,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from "d3-force";
import type { VNode } from "./types";

/** A node and a relationship as the explorer's simulation holds them. */
export interface SimNode extends SimulationNodeDatum, VNode {
  r: number;
  degree: number;
}

export interface SimLink extends SimulationLinkDatum<SimNode> {
  id: string;
  type: string;
  source: SimNode | string;
  target: SimNode | string;
}

/**
 * The force simulation (stopped: the engine steps it on animation frames). Hubs (a dataset with all
 * its patients, a code with all its uses) get longer, weaker spokes, so that charge can spread their
 * neighbours instead of packing them into a ring.
 */
export function createSimulation() {
  const linkForce = forceLink<SimNode, SimLink>([])
    .id((d) => d.id)
    .distance((l) => {
      const s = l.source as SimNode;
      const t = l.target as SimNode;
      return 16 + s.r + t.r + 2.2 * Math.sqrt(Math.max(s.degree, t.degree));
    })
    .strength(
      (l) => 0.8 / Math.sqrt(Math.max(1, (l.source as SimNode).degree, (l.target as SimNode).degree)),
    );
  const sim = forceSimulation<SimNode, SimLink>([])
    .force("link", linkForce)
    .force("charge", forceManyBody<SimNode>().strength(-38).theta(0.9).distanceMax(420))
    .force("x", forceX<SimNode>(0).strength(0.045))
    .force("y", forceY<SimNode>(0).strength(0.045))
    .velocityDecay(0.38)
    .alphaDecay(0.03)
    .stop();
  return { sim, linkForce };
}
