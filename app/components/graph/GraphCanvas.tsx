import { useEffect, useRef, useState, type MutableRefObject, type ReactNode } from "react";
import type { EngineStats, GraphEngine } from "./engine";
import type { VGraph } from "./types";

declare global {
  interface Window {
    /** read-only hooks for measuring and driving the explorer from tests and tooling */
    __hdhGraph?: Pick<GraphEngine, "screenPosition" | "nodeIds" | "reheat"> & {
      stats: () => EngineStats;
      labels: GraphEngine["labelledNodes"];
    };
  }
}

/**
 * The canvas the engine draws on. The engine is created in an effect, so nothing touches
 * `window` or the canvas during server rendering; the server sends an empty canvas and the
 * drawing starts after hydration, once its graph has loaded (`state`: the stage is `aria-busy`
 * until then, and the canvas has `data-ready="true"` only while it draws a loaded graph).
 * The engine's code (the layout, d3-force, the painter) is loaded after hydration too, beside the
 * drawing's graph, not with the page's script (decision 0064).
 */
export function GraphCanvas({
  base,
  state,
  selectedId,
  engineRef,
  onSelect,
  onHover,
  onActivate,
  onCounts,
  label,
  describedBy,
  children,
}: {
  base: VGraph;
  state: "loading" | "failed" | "ready";
  selectedId: string | null;
  engineRef: MutableRefObject<GraphEngine | null>;
  onSelect: (id: string | null) => void;
  onHover: (id: string | null) => void;
  onActivate: (id: string) => void;
  onCounts: (c: { nodes: number; edges: number }) => void;
  label: string;
  describedBy?: string;
  children?: ReactNode;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const callbacks = useRef({ onSelect, onHover, onActivate, onCounts });
  useEffect(() => {
    callbacks.current = { onSelect, onHover, onActivate, onCounts };
  });

  const [engineLoaded, setEngineLoaded] = useState(false);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    let engine: GraphEngine | null = null;
    let gone = false;
    void import("./engine").then(({ GraphEngine }) => {
      if (gone) return;
      const e = new GraphEngine(canvas, {
        onSelect: (id) => callbacks.current.onSelect(id),
        onHover: (id) => callbacks.current.onHover(id),
        onActivate: (id) => callbacks.current.onActivate(id),
      });
      engine = e;
      engineRef.current = e;
      window.__hdhGraph = {
        stats: () => ({ ...e.stats }),
        screenPosition: (id) => e.screenPosition(id),
        nodeIds: () => e.nodeIds(),
        labels: () => e.labelledNodes(),
        reheat: (alpha) => e.reheat(alpha),
      };
      setEngineLoaded(true);
    });
    return () => {
      gone = true;
      engine?.destroy();
      engineRef.current = null;
      delete window.__hdhGraph;
      setEngineLoaded(false);
    };
  }, [engineRef]);

  useEffect(() => {
    const engine = engineRef.current;
    if (!engine) return;
    engine.setData(base, "replace");
    callbacks.current.onCounts({ nodes: engine.stats.nodes, edges: engine.stats.edges });
    canvasRef.current?.setAttribute("data-ready", String(state === "ready"));
  }, [base, state, engineRef, engineLoaded]);

  useEffect(() => {
    engineRef.current?.setSelected(selectedId);
  }, [selectedId, engineRef, engineLoaded]);

  return (
    <div className="graph-stage" aria-busy={state === "loading"} data-drawing={state}>
      <canvas
        ref={canvasRef}
        className="graph-canvas"
        tabIndex={0}
        role="img"
        aria-label={label}
        aria-describedby={describedBy}
        data-testid="graph-canvas"
      />
      {children}
    </div>
  );
}
