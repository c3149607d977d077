import { describe, expect, it, vi } from "vitest";
import { GraphEngine } from "./engine";

// the keyboard table (the canvas's help text lists the same keys), driven against a stand-in engine
const keys = (GraphEngine as unknown as { keys: Record<string, (g: unknown) => void> }).keys;
const standIn = (selected: { id: string } | null) => ({
  zoomBy: vi.fn(),
  panBy: vi.fn(),
  fit: vi.fn(),
  selected,
  callbacks: { onActivate: vi.fn(), onSelect: vi.fn() },
});

describe("the graph explorer's keyboard", () => {
  it("zooms, pans and fits", () => {
    const g = standIn(null);
    for (const k of ["+", "=", "-", "_", "0", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]) keys[k](g);
    expect(g.zoomBy.mock.calls).toEqual([[1.25], [1.25], [0.8], [0.8]]);
    expect(g.fit).toHaveBeenCalledTimes(1);
    expect(g.panBy.mock.calls).toEqual([
      [60, 0],
      [-60, 0],
      [0, 60],
      [0, -60],
    ]);
  });

  it("expands the selected node on Enter (nothing without one) and clears the selection on Escape", () => {
    const none = standIn(null);
    keys.Enter(none);
    expect(none.callbacks.onActivate).not.toHaveBeenCalled();
    const g = standIn({ id: "n1" });
    keys.Enter(g);
    keys.Escape(g);
    expect(g.callbacks.onActivate).toHaveBeenCalledWith("n1");
    expect(g.callbacks.onSelect).toHaveBeenCalledWith(null);
    expect(keys.a).toBeUndefined();
  });
});
