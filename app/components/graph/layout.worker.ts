import { createSimulation, groupByLayer, type LayoutLink, type LayoutNode } from "./sim";

/**
 * The graph explorer's layout thread (decision 0070): the force simulation of sim.ts runs in a module
 * Web Worker, so that laying out 1,000 nodes never blocks the page; the engine (engine.ts, on the
 * page) sends it the drawing's nodes and relationships and paints the positions it sends back.
 *
 * The worker's script is the chunk this module is bundled into: `LAYOUT_WORKER_URL` is that chunk's
 * own address (`import.meta.url`), and loading the chunk in a worker starts `serveLayout` below. The
 * Remix classic compiler (esbuild) has no worker entry of its own (`new Worker(new URL(…))` is not
 * bundled), and this needs none: the chunk is built, hashed and exported with the others.
 */

/** the address of the chunk that holds this module: the engine starts it as a module worker */
export const LAYOUT_WORKER_URL = import.meta.url;

/** page → layout thread */
export type LayoutRequest =
  | {
      type: "data";
      /** counts up with each drawing; positions answer with the generation they belong to */
      generation: number;
      /** positions kept from the drawing before (undefined for new nodes: the layout places them) */
      nodes: LayoutNode[];
      links: { source: string; target: string }[];
      alpha: number;
      /** the overview: one column per layer (sim.ts groupByLayer) */
      grouped: boolean;
    }
  /** a node held by the pointer at a world position (dragging), or let go (`x` null) */
  | { type: "pin"; index: number; x: number | null; y: number | null }
  | { type: "reheat"; alpha: number };

/** layout thread → page: every node's position, x then y, in the order the nodes were sent */
export interface LayoutFrame {
  type: "positions";
  generation: number;
  xy: Float64Array;
  /** the layout has come to rest (the last frame of a drawing, until it is dragged or reheated) */
  settled: boolean;
  /** the simulation's alpha after this frame's steps (1 when hot, alphaMin when settled) */
  alpha: number;
  /** simulation steps in this frame, and the time they took in ms */
  ticks: number;
  tickMs: number;
}

/** steps of one frame while the layout settles on its own, in ms (one step at least) */
const BATCH_MS = 12;
/** while a node is dragged: one step a frame, about one per display frame */
const DRAG_STEP_MS = 16;
/**
 * A new drawing's first positions are sent once the layout has cooled to this alpha, or after
 * FIRST_FRAME_MAX_MS of stepping: its hot steps only tangle and untangle the drawing (decision 0077).
 */
export const FIRST_FRAME_ALPHA = 0.1;
const FIRST_FRAME_MAX_MS = 1_000;

interface LayoutScope {
  postMessage(message: LayoutFrame, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null;
}

/** Answers the page's requests: lays out each drawing and sends its positions back, frame by frame. */
export function serveLayout(scope: LayoutScope, firstFrameMaxMs = FIRST_FRAME_MAX_MS) {
  const { sim, linkForce } = createSimulation();
  let nodes: LayoutNode[] = [];
  let generation = 0;
  let pinned = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** a new drawing whose first positions are not sent yet: when it began, and the steps taken since */
  let fresh: { since: number; ticks: number; ms: number } | null = null;

  const hot = () => pinned || sim.alpha() > sim.alphaMin();
  const step = () => {
    timer = null;
    const t0 = performance.now();
    let ticks = 0;
    do {
      sim.tick();
      ticks++;
    } while (!pinned && sim.alpha() > sim.alphaMin() && performance.now() - t0 < BATCH_MS);
    let tickMs = performance.now() - t0;
    if (fresh) {
      fresh.ticks += ticks;
      fresh.ms += tickMs;
      if (hot() && sim.alpha() > FIRST_FRAME_ALPHA && performance.now() - fresh.since < firstFrameMaxMs) {
        schedule();
        return;
      }
      ({ ticks, ms: tickMs } = fresh);
      fresh = null;
    }
    const xy = new Float64Array(nodes.length * 2);
    nodes.forEach((n, i) => {
      xy[2 * i] = n.x!;
      xy[2 * i + 1] = n.y!;
    });
    scope.postMessage(
      { type: "positions", generation, xy, settled: !hot(), alpha: sim.alpha(), ticks, tickMs },
      [xy.buffer],
    );
    schedule();
  };
  const schedule = () => {
    if (!timer && hot()) timer = setTimeout(step, pinned ? DRAG_STEP_MS : 0);
  };

  scope.onmessage = ({ data: m }) => {
    if (m.type === "data") {
      generation = m.generation;
      nodes = m.nodes;
      pinned = false;
      // links first emptied, so that the link force never resolves new ids against the old nodes
      linkForce.links([]);
      groupByLayer(sim, nodes, m.grouped);
      sim.nodes(nodes);
      linkForce.links(m.links as LayoutLink[]);
      sim.alphaTarget(0).alpha(m.alpha);
      fresh = { since: performance.now(), ticks: 0, ms: 0 };
    } else if (m.type === "pin") {
      const n = nodes[m.index];
      if (!n) return;
      n.fx = m.x;
      n.fy = m.y;
      pinned = m.x !== null;
      fresh = null;
      sim.alphaTarget(pinned ? 0.25 : 0);
      if (pinned && sim.alpha() < 0.25) sim.alpha(0.25);
    } else {
      sim.alpha(m.alpha);
    }
    schedule();
  };
}

// loaded as a worker's script (not on the page): serve the page that started it
if ((globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== undefined)
  serveLayout(globalThis as unknown as LayoutScope);
