import { MIN_SCREEN_RADIUS } from "./paint";
import type { SimNode } from "./sim";

/**
 * The geometry of the explorer's view: a uniform grid over the nodes' world positions for
 * hit-testing (rebuilt only after nodes moved), and the transform that fits every node on screen.
 */

const CELL = 40;
const HIT_TOLERANCE_PX = 4;
const cellKey = (cx: number, cy: number) => (cx + 32768) * 65536 + (cy + 32768);

export class HitGrid {
  private cells = new Map<number, SimNode[]>();

  rebuild(nodes: SimNode[]) {
    this.cells.clear();
    for (const n of nodes) {
      if (n.x === undefined || n.y === undefined) continue;
      const key = cellKey(Math.floor(n.x / CELL), Math.floor(n.y / CELL));
      const cell = this.cells.get(key);
      if (cell) cell.push(n);
      else this.cells.set(key, [n]);
    }
  }

  /** the node nearest to a world point within its radius (plus a tolerance), at zoom k */
  nodeAt(wx: number, wy: number, k: number): SimNode | null {
    const minR = MIN_SCREEN_RADIUS / k;
    const tol = HIT_TOLERANCE_PX / k;
    const reach = Math.ceil((12 + tol + minR) / CELL);
    const cx = Math.floor(wx / CELL);
    const cy = Math.floor(wy / CELL);
    let best: SimNode | null = null;
    let bestD = Infinity;
    for (let i = cx - reach; i <= cx + reach; i++) {
      for (let j = cy - reach; j <= cy + reach; j++) {
        const cell = this.cells.get(cellKey(i, j));
        if (!cell) continue;
        for (const n of cell) {
          const d = Math.hypot(n.x! - wx, n.y! - wy);
          if (d <= Math.max(n.r, minR) + tol && d < bestD) {
            best = n;
            bestD = d;
          }
        }
      }
    }
    return best;
  }
}

/** the transform (screen = world × k + offset) that shows every node with a margin, or null */
export function fitTransform(nodes: SimNode[], width: number, height: number, pad = 30) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of nodes) {
    if (n.x === undefined || n.y === undefined) continue;
    if (n.x < x0) x0 = n.x;
    if (n.x > x1) x1 = n.x;
    if (n.y < y0) y0 = n.y;
    if (n.y > y1) y1 = n.y;
  }
  if (!Number.isFinite(x0)) return null;
  const fit = Math.min((width - 2 * pad) / Math.max(1, x1 - x0), (height - 2 * pad) / Math.max(1, y1 - y0));
  const k = Math.min(4, Math.max(0.05, fit));
  return { k, x: width / 2 - ((x0 + x1) / 2) * k, y: height / 2 - ((y0 + y1) / 2) * k };
}
