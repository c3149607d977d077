import { describe, expect, it } from "vitest";
import { FIRST_FRAME_ALPHA, serveLayout, type LayoutFrame, type LayoutRequest } from "./layout.worker";
import type { Layer } from "../../types";

/** the layout thread, served on a plain object that collects what it posts (decision 0077) */
function layoutThread() {
  const frames: LayoutFrame[] = [];
  const waiters: (() => void)[] = [];
  const scope = {
    onmessage: null as ((e: MessageEvent<LayoutRequest>) => void) | null,
    postMessage(f: LayoutFrame) {
      frames.push(f);
      waiters.splice(0).forEach((w) => w());
    },
  };
  // no time limit on the first frame: what is sent first must not depend on this machine's load
  serveLayout(scope, Infinity);
  const send = (m: LayoutRequest) => scope.onmessage!({ data: m } as MessageEvent<LayoutRequest>);
  const until = async (ok: () => boolean) => {
    while (!ok()) await new Promise<void>((r) => waiters.push(r));
  };
  return { frames, send, until };
}

const LAYERS: Layer[] = ["l1", "l2", "l3", "l4", "l5"];
/** a drawing of `n` nodes over the five layers, each linked to two earlier ones */
function drawing(n: number, generation = 1): LayoutRequest {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, layer: LAYERS[i % 5], r: 4, degree: 2 }));
  const links = nodes.slice(1).flatMap((_, j) => {
    const i = j + 1;
    return [
      { source: `n${i}`, target: `n${Math.floor(i / 2)}` },
      { source: `n${i}`, target: `n${(i * 7) % i}` },
    ];
  });
  return { type: "data", generation, nodes, links, alpha: 1, grouped: false };
}

describe("the layout thread", () => {
  it("sends a new drawing's first positions only once it has cooled, then every batch until it settles", async () => {
    const t = layoutThread();
    t.send(drawing(400));
    await t.until(() => t.frames.some((f) => f.settled));
    const [first] = t.frames;
    // the hot steps (alpha 1 → 0.1, 76 steps of alpha × 0.97) are never painted
    expect(first.alpha).toBeLessThanOrEqual(FIRST_FRAME_ALPHA);
    expect(first.ticks).toBeGreaterThanOrEqual(76);
    expect(first.xy.length).toBe(800);
    expect(first.xy.every(Number.isFinite)).toBe(true);
    // every step is counted once, whichever frame carried it: d3's alpha reaches alphaMin (0.001) after 227
    expect(t.frames.reduce((s, f) => s + f.ticks, 0)).toBe(227);
    expect(t.frames.filter((f) => f.settled)).toHaveLength(1);
    expect(t.frames.at(-1)!.settled).toBe(true);
  }, 60_000);

  it("answers a dragged node at once, hot or not", async () => {
    const t = layoutThread();
    t.send(drawing(200));
    await t.until(() => t.frames.some((f) => f.settled));
    const before = t.frames.length;
    t.send({ type: "pin", index: 3, x: 500, y: 500 });
    await t.until(() => t.frames.length > before);
    const moved = t.frames[before];
    expect(moved.settled).toBe(false);
    expect(moved.alpha).toBeGreaterThan(FIRST_FRAME_ALPHA);
    expect([moved.xy[6], moved.xy[7]]).toEqual([500, 500]);
    t.send({ type: "pin", index: 3, x: null, y: null });
    await t.until(() => t.frames.at(-1)!.settled);
  }, 60_000);
});
