import { useEffect, useRef, type MutableRefObject, type ReactNode } from "react";
import { GraphEngine, type EngineStats } from "./engine";
import type { VGraph } from "./types";

declare global {
  interface Window {
    /** read-only hooks for measuring and driving the explorer from tests and tooling */
    __hdhGraph?: {
      stats: () => EngineStats;
      screenPosition: (id: string) => { x: number; y: number } | null;
      nodeIds: () => string[];
      /** the nodes whose caption the last frame wrote beside them */
      labels: () => { id: string; layer: string; caption: string }[];
      reheat: (alpha?: number) => void;
    };
  }
}

/**
 * The canvas the engine draws on. The engine is created in an effect, so nothing touches
 * `window` or the canvas during server rendering; the server sends an empty canvas and the
 * drawing starts after hydration, once its graph has loaded (`state`: the stage is `aria-busy`
 * until then, and the canvas has `data-ready="true"` only while it draws a loaded graph).
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

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const engine = new GraphEngine(canvas, {
      onSelect: (id) => callbacks.current.onSelect(id),
      onHover: (id) => callbacks.current.onHover(id),
      onActivate: (id) => callbacks.current.onActivate(id),
    });
    engineRef.current = engine;
    window.__hdhGraph = {
      stats: () => ({ ...engine.stats }),
      screenPosition: (id) => engine.screenPosition(id),
      nodeIds: () => engine.nodeIds(),
      labels: () => engine.labelledNodes(),
      reheat: (alpha) => engine.reheat(alpha),
    };
    return () => {
      engine.destroy();
      engineRef.current = null;
      delete window.__hdhGraph;
    };
  }, [engineRef]);

  useEffect(() => {
    const engine = engineRef.current;
    if (!engine) return;
    engine.setData(base, "replace");
    callbacks.current.onCounts({ nodes: engine.stats.nodes, edges: engine.stats.edges });
    canvasRef.current?.setAttribute("data-ready", String(state === "ready"));
  }, [base, state, engineRef]);

  useEffect(() => {
    engineRef.current?.setSelected(selectedId);
  }, [selectedId, engineRef]);

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
