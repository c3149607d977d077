import { describe, expect, it } from "vitest";
import { fitText, placeLabels, type LabelCandidate } from "./label-layout";

const measure = (t: string) => t.length * 7;
const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe("graph label layout", () => {
  it("never overlaps two labels, never runs past the canvas, and keeps off the legend", () => {
    // an expanded node: twelve neighbours packed close together near the right edge
    const candidates: LabelCandidate[] = [
      { id: "focus", text: "AlphaKlinik Berlin", x: 560, y: 200, r: 5, pinned: true },
      ...Array.from({ length: 12 }, (_, i) => ({
        id: `n${i}`,
        text: `Depression and anxiety cohort, AlphaKlinik Berlin ${i}`,
        x: 520 + (i % 4) * 12,
        y: 180 + Math.floor(i / 4) * 10,
        r: 3,
      })),
    ];
    const legend = { x: 0, y: 300, w: 200, h: 100 };
    const placed = placeLabels(candidates, { width: 600, height: 400, measure, obstacles: [legend] });
    expect(placed[0].id).toBe("focus");
    for (const p of placed) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x + p.w).toBeLessThanOrEqual(600);
      expect(p.w).toBeLessThanOrEqual(180 + 4);
      expect(overlap(p, legend)).toBe(false);
      for (const q of placed) if (q !== p) expect(overlap(p, q)).toBe(false);
    }
    expect(placed.length).toBeGreaterThanOrEqual(2);
  });

  it("cuts long captions with an ellipsis", () => {
    expect(fitText("short", 100, measure)).toBe("short");
    const cut = fitText("Hypertensive disorder, systemic arterial", 100, measure);
    expect(cut.endsWith("…")).toBe(true);
    expect(measure(cut)).toBeLessThanOrEqual(100);
  });
});
