import { describe, expect, it } from "vitest";
import { hairline, paintScene, type Scene } from "./paint";
import type { SimLink, SimNode } from "./sim";
import { ALL_LAYERS, LAYER_COLOURS } from "./types";

/** a 2D context that records, for each stroke(), its width in device pixels (lineWidth × the transform's scale) */
function recordingContext() {
  const strokes: number[] = [];
  let scale = 1;
  const state: Record<string, unknown> = { lineWidth: 1 };
  const ctx = new Proxy(state, {
    get(target, key) {
      if (key === "setTransform") return (a: number) => void (scale = a);
      if (key === "stroke") return () => void strokes.push((target.lineWidth as number) * scale);
      if (key === "measureText") return (s: string) => ({ width: s.length * 6 });
      if (key in target) return target[key as string];
      return () => {};
    },
    set(target, key, value) {
      target[key as string] = value;
      return true;
    },
  });
  return { ctx: ctx as unknown as CanvasRenderingContext2D, strokes };
}

function scene(dpr: number, k: number): Scene {
  const nodes: SimNode[] = Array.from({ length: 200 }, (_, i) => ({
    id: `n${i}`,
    caption: `Node ${i}`,
    label: "Patient",
    layer: ALL_LAYERS[i % ALL_LAYERS.length],
    r: 4,
    degree: 2,
    x: (i % 20) * 30,
    y: Math.floor(i / 20) * 30,
  }));
  const links: SimLink[] = nodes
    .slice(1)
    .map((n, i) => ({ id: `e${i}`, type: "HAS", source: n, target: nodes[i] }));
  const byLayer = new Map(ALL_LAYERS.map((l) => [l, nodes.filter((n) => n.layer === l)]));
  return {
    width: 412,
    height: 600,
    dpr,
    t: { k, x: 10, y: 10 },
    nodes,
    links,
    byId: new Map(nodes.map((n) => [n.id, n])),
    byLayer,
    colours: LAYER_COLOURS,
    selected: null,
    hovered: null,
    highlighted: new Set(),
    obstacles: [],
  };
}

describe("painting the drawing", () => {
  it("strokes relationships and node outlines at most one device pixel wide, on any screen and zoom (decision 0077)", () => {
    for (const dpr of [1, 1.75, 2, 3])
      for (const k of [0.3, 0.5, 1]) {
        const { ctx, strokes } = recordingContext();
        paintScene(ctx, scene(dpr, k));
        expect(strokes.length).toBeGreaterThanOrEqual(k > 0.35 ? 6 : 1);
        for (const w of strokes) expect(w).toBeLessThanOrEqual(1);
      }
  });

  it("keeps the relationships' CSS width where a device pixel holds it", () => {
    expect(hairline(0.9, 1)).toBe(0.9);
    expect(hairline(0.9, 1.75) * 1.75).toBeLessThanOrEqual(1);
    expect(hairline(1, 2) * 2).toBeLessThanOrEqual(1);
  });
});
