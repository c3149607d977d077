import type { Layer } from "../../types";
import type { Box } from "./label-layout";
import { fitTransform, HitGrid } from "./hit-grid";
import { LABEL_ALL_MAX, paintScene } from "./paint";
import { LAYOUT_WORKER_URL, type LayoutFrame, type LayoutRequest } from "./layout.worker";
import type { SimLink, SimNode } from "./sim";
import { ALL_LAYERS, LAYER_COLOURS, ZOOM_STEP, type VEdge, type VGraph } from "./types";

/**
 * The graph explorer's drawing engine: a d3-force layout drawn on a <canvas>. The layout runs in its
 * own thread (layout.worker.ts, decision 0070), which sends the nodes' positions frame by frame; the
 * page paints them on requestAnimationFrame (a few times a second while a drawing settles, decision
 * 0058; every frame while a node is dragged) only while something changes (new positions, the view
 * moves, the hover or selection changes) and idle otherwise. Pan and zoom keep one transform
 * (screen = world × k + offset); hover and click hit-test through a uniform grid rebuilt only after
 * the nodes moved. Browser-only: construct it in an effect, never during server rendering.
 */

export type EngineStats = GraphEngine["stats"];

const endpoint = (v: SimNode | string) => (typeof v === "string" ? v : v.id);

/** how often a settling layout is drawn, in ms (a layout that settles within a frame is drawn once) */
const SETTLE_DRAW_EVERY_MS = 200;
const PAN_STEP = 60;

export class GraphEngine {
  private readonly ctx: CanvasRenderingContext2D;
  private readonly colours: Record<Layer, string>;
  private width = 0;
  private height = 0;
  private dpr = 1;

  private nodes: SimNode[] = [];
  private byId = new Map<string, SimNode>();
  private byLayer = new Map<Layer, SimNode[]>();
  private links: SimLink[] = [];
  private adjacency = new Map<string, Set<string>>();
  /** the layout thread, and the drawing its positions must belong to */
  private readonly layout: Worker;
  private generation = 0;
  /** no positions yet for this drawing's new nodes: nothing is painted until they come */
  private placed = false;

  private t = { k: 1, x: 0, y: 0 };
  private autoFit = true;
  private raf = 0;
  private dirty = true;
  /** when the last frame was drawn (performance.now()) */
  private lastDraw = 0;
  private destroyed = false;

  private hovered: SimNode | null = null;
  private selected: SimNode | null = null;
  private highlighted = new Set<string>();

  private grid = new HitGrid();
  private gridDirty = true;

  /** a pointer held down: on a node (dragging it) or on the background (panning from the view `t`) */
  private pointer: {
    id: number;
    node: SimNode | null;
    sx: number;
    sy: number;
    t: GraphEngine["t"];
    moved: boolean;
  } | null = null;

  /** the nodes whose label the last frame wrote */
  private labelled: string[] = [];
  private drawTotalMs = 0;
  private tickTotalMs = 0;
  readonly stats = {
    /** frames painted and simulation steps since the engine started */
    frames: 0,
    ticks: 0,
    /** mean paint time and mean simulation step time, in ms */
    meanDrawMs: 0,
    meanTickMs: 0,
    nodes: 0,
    edges: 0,
    running: false,
  };

  private readonly resizeObserver: ResizeObserver;
  private readonly listening = new AbortController();

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly callbacks: {
      onHover?: (id: string | null) => void;
      onSelect?: (id: string | null) => void;
      /** double click or Enter on the selected node */
      onActivate?: (id: string) => void;
    } = {},
  ) {
    const ctx = canvas.getContext("2d", { alpha: false });
    if (!ctx) throw new Error("canvas 2d context unavailable");
    this.ctx = ctx;
    const style = getComputedStyle(canvas);
    this.colours = Object.fromEntries(
      ALL_LAYERS.map((l) => [l, style.getPropertyValue(`--${l}`).trim() || LAYER_COLOURS[l]]),
    ) as Record<Layer, string>;

    this.layout = new Worker(LAYOUT_WORKER_URL, { type: "module", name: "graph layout" });
    this.layout.onmessage = (e: MessageEvent<LayoutFrame>) => this.onPositions(e.data);

    const { signal } = this.listening;
    canvas.addEventListener("pointerdown", this.onPointerDown, { signal });
    canvas.addEventListener("pointermove", this.onPointerMove, { signal });
    canvas.addEventListener("pointerup", this.onPointerUp, { signal });
    canvas.addEventListener("pointercancel", this.onPointerUp, { signal });
    canvas.addEventListener("pointerleave", this.onPointerLeave, { signal });
    canvas.addEventListener("wheel", this.onWheel, { passive: false, signal });
    canvas.addEventListener("dblclick", this.onDoubleClick, { signal });
    canvas.addEventListener("keydown", this.onKeyDown, { signal });

    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(canvas.parentElement ?? canvas);
    this.resize();
  }

  // ---- data ---------------------------------------------------------------------------------

  /**
   * Replaces the drawing (keeping the positions of nodes that stay) or merges a neighbourhood into
   * it, placing new nodes around `anchorId`.
   */
  setData(
    graph: VGraph,
    mode: "replace" | "merge",
    anchorId?: string | null,
  ): { addedNodes: number; addedEdges: number } {
    const anchor = anchorId ? this.byId.get(anchorId) : undefined;
    const next = new Map<string, SimNode>();
    if (mode === "merge") for (const n of this.nodes) next.set(n.id, n);
    let addedNodes = 0;
    for (const n of graph.nodes) {
      const existing = this.byId.get(n.id);
      if (existing) {
        existing.caption = n.caption;
        existing.label = n.label;
        existing.layer = n.layer;
        next.set(n.id, existing);
        continue;
      }
      const node: SimNode = { ...n, r: 4, degree: 0 };
      if (anchor && anchor.x !== undefined && anchor.y !== undefined) {
        const a = Math.random() * Math.PI * 2;
        const d = 20 + Math.random() * 40;
        node.x = anchor.x + Math.cos(a) * d;
        node.y = anchor.y + Math.sin(a) * d;
      }
      next.set(n.id, node);
      addedNodes++;
    }

    const linkIds = new Set<string>();
    const links: SimLink[] = [];
    const add = (l: SimLink | VEdge) => {
      const s = endpoint(l.source);
      const t = endpoint(l.target);
      if (linkIds.has(l.id) || !next.has(s) || !next.has(t) || s === t) return false;
      linkIds.add(l.id);
      // the nodes themselves, which the painter reads positions from (the layout thread gets their ids)
      links.push({ id: l.id, type: l.type, source: next.get(s)!, target: next.get(t)! });
      return true;
    };
    if (mode === "merge") for (const l of this.links) add(l);
    const before = links.length;
    for (const e of graph.edges) add(e);
    const addedEdges = links.length - before;

    this.nodes = [...next.values()];
    this.byId = next;
    this.links = links;
    this.adjacency = new Map(this.nodes.map((n) => [n.id, new Set<string>()]));
    for (const n of this.nodes) n.degree = 0;
    for (const l of links) {
      const s = endpoint(l.source);
      const t = endpoint(l.target);
      this.adjacency.get(s)?.add(t);
      this.adjacency.get(t)?.add(s);
      next.get(s)!.degree++;
      next.get(t)!.degree++;
    }
    for (const n of this.nodes) n.r = 3.5 + Math.min(7, Math.sqrt(n.degree) * 1.1);
    this.byLayer = new Map(ALL_LAYERS.map((l) => [l, [] as SimNode[]]));
    for (const n of this.nodes) this.byLayer.get(n.layer)?.push(n);

    if (this.hovered && !next.has(this.hovered.id)) this.hovered = null;
    this.setSelected(this.selected?.id ?? null);

    this.generation++;
    this.placed = false;
    this.stats.running = true;
    this.post({
      type: "data",
      generation: this.generation,
      nodes: this.nodes.map(({ id, layer, r, degree, x, y }) => ({ id, layer, r, degree, x, y })),
      links: this.links.map((l) => ({ source: endpoint(l.source), target: endpoint(l.target) })),
      alpha: mode === "merge" ? 0.5 : 1,
      grouped: this.nodes.length <= LABEL_ALL_MAX,
    });
    if (mode === "replace") this.autoFit = true;
    this.stats.nodes = this.nodes.length;
    this.stats.edges = this.links.length;
    this.gridDirty = true;
    this.invalidate();
    return { addedNodes, addedEdges };
  }

  setSelected(id: string | null) {
    this.selected = id ? (this.byId.get(id) ?? null) : null;
    this.highlighted = this.selected ? new Set(this.adjacency.get(this.selected.id) ?? []) : new Set();
    this.invalidate();
  }

  has(id: string) {
    return this.byId.has(id);
  }

  // ---- view ---------------------------------------------------------------------------------

  zoomBy(factor: number, sx = this.width / 2, sy = this.height / 2) {
    const k = Math.min(8, Math.max(0.05, this.t.k * factor));
    const f = k / this.t.k;
    this.view({ k, x: sx - (sx - this.t.x) * f, y: sy - (sy - this.t.y) * f });
  }

  panBy(dx: number, dy: number) {
    this.view({ ...this.t, x: this.t.x + dx, y: this.t.y + dy });
  }

  /** a view the user chose: the drawing stops fitting itself */
  private view(t: GraphEngine["t"]) {
    this.t = t;
    this.autoFit = false;
    this.invalidate();
  }

  /** fit the whole drawing; keeps fitting while the layout settles */
  fit() {
    this.autoFit = true;
    this.fitNow(1);
    this.invalidate();
  }

  centerOn(id: string) {
    const n = this.byId.get(id);
    if (!n || n.x === undefined || n.y === undefined) return;
    const k = Math.max(this.t.k, 1.2);
    this.view({ k, x: this.width / 2 - n.x * k, y: this.height / 2 - n.y * k });
  }

  /** where a node is on screen, in CSS pixels relative to the canvas (tests and tooling) */
  screenPosition(id: string): { x: number; y: number } | null {
    const n = this.byId.get(id);
    if (!n || n.x === undefined || n.y === undefined) return null;
    return { x: n.x * this.t.k + this.t.x, y: n.y * this.t.k + this.t.y };
  }

  /** ids of the drawn nodes (tests and tooling) */
  nodeIds(): string[] {
    return this.nodes.map((n) => n.id);
  }

  /** the nodes whose caption the last frame wrote beside them (tests and tooling) */
  labelledNodes(): { id: string; layer: Layer; caption: string }[] {
    return this.labelled.flatMap((id) => {
      const n = this.byId.get(id);
      return n ? [{ id, layer: n.layer, caption: n.caption }] : [];
    });
  }

  /** keep the simulation stepping (for measuring a sustained animation) */
  reheat(alpha = 1) {
    this.stats.running = true;
    this.post({ type: "reheat", alpha });
  }

  destroy() {
    this.destroyed = true;
    if (this.raf) cancelAnimationFrame(this.raf);
    this.resizeObserver.disconnect();
    this.listening.abort();
    this.layout.terminate();
  }

  // ---- layout -------------------------------------------------------------------------------

  private post(request: LayoutRequest) {
    this.layout.postMessage(request);
  }

  /** a frame of positions from the layout thread (those of an earlier drawing are dropped) */
  private onPositions(f: LayoutFrame) {
    if (f.generation !== this.generation || this.destroyed) return;
    const dragging = !!this.pointer?.node;
    this.nodes.forEach((n, i) => {
      if (dragging && n === this.pointer?.node) return;
      n.x = f.xy[2 * i];
      n.y = f.xy[2 * i + 1];
    });
    this.stats.ticks += f.ticks;
    this.tickTotalMs += f.tickMs;
    this.stats.meanTickMs = this.tickTotalMs / this.stats.ticks;
    this.stats.running = !f.settled;
    this.gridDirty = true;
    const first = !this.placed;
    this.placed = true;
    if (first || dragging || f.settled || performance.now() - this.lastDraw >= SETTLE_DRAW_EVERY_MS) {
      if (this.autoFit) this.fitNow(dragging ? 0.2 : 1);
      this.invalidate();
    }
  }

  // ---- loop ---------------------------------------------------------------------------------

  private invalidate() {
    this.dirty = true;
    this.schedule();
  }

  private schedule() {
    if (!this.raf && !this.destroyed) this.raf = requestAnimationFrame(this.frame);
  }

  private readonly frame = () => {
    this.raf = 0;
    // a drawing whose new nodes have no position yet waits for its first frame of the layout
    if (this.dirty && this.placed) {
      this.dirty = false;
      const t0 = performance.now();
      this.draw();
      const ms = performance.now() - t0;
      this.lastDraw = t0;
      this.stats.frames++;
      this.drawTotalMs += ms;
      this.stats.meanDrawMs = this.drawTotalMs / this.stats.frames;
    }
  };

  private resize() {
    const box = (this.canvas.parentElement ?? this.canvas).getBoundingClientRect();
    const w = Math.max(1, Math.floor(box.width));
    const h = Math.max(1, Math.floor(box.height));
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    if (w === this.width && h === this.height && dpr === this.dpr) return;
    const firstLayout = this.width === 0;
    this.t = { ...this.t, x: this.t.x + (w - this.width) / 2, y: this.t.y + (h - this.height) / 2 };
    if (firstLayout) this.t = { k: 1, x: w / 2, y: h / 2 };
    this.width = w;
    this.height = h;
    this.dpr = dpr;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    if (this.autoFit) this.fitNow(1);
    this.invalidate();
  }

  private fitNow(ease: number) {
    if (!this.width) return;
    const target = fitTransform(this.nodes, this.width, this.height);
    if (!target) return;
    const lerp = (a: number, b: number) => a + (b - a) * ease;
    this.t = { k: lerp(this.t.k, target.k), x: lerp(this.t.x, target.x), y: lerp(this.t.y, target.y) };
  }

  // ---- painting -----------------------------------------------------------------------------

  private draw() {
    this.labelled = paintScene(this.ctx, {
      width: this.width,
      height: this.height,
      dpr: this.dpr,
      t: this.t,
      nodes: this.nodes,
      links: this.links,
      byId: this.byId,
      byLayer: this.byLayer,
      colours: this.colours,
      selected: this.selected,
      hovered: this.hovered,
      highlighted: this.highlighted,
      obstacles: this.obstacles(),
    });
  }

  /** what labels keep off: the controls drawn over the canvas (marked data-graph-obstacle), in canvas pixels */
  private obstacles(): Box[] {
    const stage = this.canvas.parentElement;
    if (!stage) return [];
    const origin = this.canvas.getBoundingClientRect();
    return [...stage.querySelectorAll("[data-graph-obstacle]")].map((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.left - origin.left, y: r.top - origin.top, w: r.width, h: r.height };
    });
  }

  // ---- hit-testing ----------------------------------------------------------------------------

  /** the node under a screen point (CSS pixels relative to the canvas), nearest first */
  nodeAt(sx: number, sy: number): SimNode | null {
    if (this.gridDirty) {
      this.grid.rebuild(this.nodes);
      this.gridDirty = false;
    }
    return this.grid.nodeAt((sx - this.t.x) / this.t.k, (sy - this.t.y) / this.t.k, this.t.k);
  }

  // ---- input --------------------------------------------------------------------------------

  private local(e: MouseEvent) {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private setHover(n: SimNode | null) {
    if (n === this.hovered) return;
    this.hovered = n;
    this.canvas.style.cursor = n ? "pointer" : this.pointer && !this.pointer.node ? "grabbing" : "grab";
    this.callbacks.onHover?.(n?.id ?? null);
    this.invalidate();
  }

  private readonly onPointerDown = (e: PointerEvent) => {
    if (e.button !== 0) return;
    const p = this.local(e);
    const hit = this.nodeAt(p.x, p.y);
    this.canvas.setPointerCapture(e.pointerId);
    this.pointer = {
      id: e.pointerId,
      node: hit,
      sx: p.x,
      sy: p.y,
      t: this.t,
      moved: false,
    };
    if (!hit) this.canvas.style.cursor = "grabbing";
  };

  private readonly onPointerMove = (e: PointerEvent) => {
    const p = this.local(e);
    const ptr = this.pointer;
    if (!ptr || ptr.id !== e.pointerId) {
      this.setHover(this.nodeAt(p.x, p.y));
      return;
    }
    if (!ptr.moved && Math.hypot(p.x - ptr.sx, p.y - ptr.sy) < 4) return;
    ptr.moved = true;
    if (!ptr.node) {
      this.view({ ...this.t, x: ptr.t.x + (p.x - ptr.sx), y: ptr.t.y + (p.y - ptr.sy) });
    } else {
      // the node follows the pointer at once; the layout thread moves the others around it
      const x = (p.x - this.t.x) / this.t.k;
      const y = (p.y - this.t.y) / this.t.k;
      ptr.node.x = x;
      ptr.node.y = y;
      this.post({ type: "pin", index: this.nodes.indexOf(ptr.node), x, y });
      this.autoFit = false;
      this.stats.running = true;
      this.gridDirty = true;
      this.invalidate();
    }
  };

  private readonly onPointerUp = (e: PointerEvent) => {
    const ptr = this.pointer;
    if (!ptr || ptr.id !== e.pointerId) return;
    this.pointer = null;
    if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    if (ptr.node) {
      if (ptr.moved) this.post({ type: "pin", index: this.nodes.indexOf(ptr.node), x: null, y: null });
      if (!ptr.moved && e.type === "pointerup") this.callbacks.onSelect?.(ptr.node.id);
    } else if (!ptr.moved && e.type === "pointerup") {
      this.callbacks.onSelect?.(null);
    }
    this.canvas.style.cursor = this.hovered ? "pointer" : "grab";
    this.invalidate();
  };

  private readonly onPointerLeave = () => {
    if (!this.pointer) this.setHover(null);
  };

  private readonly onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const p = this.local(e);
    const unit = e.deltaMode === 1 ? 0.05 : e.deltaMode === 2 ? 1 : 0.0015;
    this.zoomBy(Math.exp(-e.deltaY * unit), p.x, p.y);
  };

  private readonly onDoubleClick = (e: MouseEvent) => {
    const p = this.local(e);
    const hit = this.nodeAt(p.x, p.y);
    if (hit) this.callbacks.onActivate?.(hit.id);
  };

  /** the keyboard on the focused canvas (the help text lists the same): Enter expands the selected node */
  private static readonly keys: Record<string, (g: GraphEngine) => void> = {
    "+": (g) => g.zoomBy(ZOOM_STEP),
    "=": (g) => g.zoomBy(ZOOM_STEP),
    "-": (g) => g.zoomBy(1 / ZOOM_STEP),
    _: (g) => g.zoomBy(1 / ZOOM_STEP),
    "0": (g) => g.fit(),
    ArrowLeft: (g) => g.panBy(PAN_STEP, 0),
    ArrowRight: (g) => g.panBy(-PAN_STEP, 0),
    ArrowUp: (g) => g.panBy(0, PAN_STEP),
    ArrowDown: (g) => g.panBy(0, -PAN_STEP),
    Enter: (g) => g.selected && g.callbacks.onActivate?.(g.selected.id),
    Escape: (g) => g.callbacks.onSelect?.(null),
  };

  private readonly onKeyDown = (e: KeyboardEvent) => {
    const act = GraphEngine.keys[e.key];
    if (!act) return;
    act(this);
    e.preventDefault();
  };
}
