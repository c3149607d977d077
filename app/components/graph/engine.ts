import {
  forceLink,
  forceManyBody,
  forceSimulation,
  forceX,
  forceY,
  type ForceLink,
  type Simulation,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from "d3-force";
import type { Layer } from "../../types";
import { ALL_LAYERS, LAYER_COLOURS, type VEdge, type VGraph, type VNode } from "./types";

/**
 * The graph explorer's drawing engine: a d3-force simulation drawn on a <canvas>, stepped and
 * painted on requestAnimationFrame only while something changes (the simulation is hot, the view
 * moves, the hover or selection changes) and idle otherwise. Pan and zoom keep one transform
 * (screen = world × k + offset); hover and click hit-test through a uniform grid rebuilt only after
 * the nodes moved. Browser-only: construct it in an effect, never during server rendering.
 */

interface SimNode extends SimulationNodeDatum, VNode {
  r: number;
  degree: number;
}

interface SimLink extends SimulationLinkDatum<SimNode> {
  id: string;
  type: string;
  source: SimNode | string;
  target: SimNode | string;
}

export interface EngineCallbacks {
  onHover?: (id: string | null) => void;
  onSelect?: (id: string | null) => void;
  /** double click or Enter on the selected node */
  onActivate?: (id: string) => void;
}

export interface EngineStats {
  /** frames painted since the engine started */
  frames: number;
  /** simulation steps since the engine started */
  ticks: number;
  /** paint time of the last frame, in ms */
  lastDrawMs: number;
  /** mean paint time, in ms */
  meanDrawMs: number;
  /** mean simulation step time, in ms */
  meanTickMs: number;
  nodes: number;
  edges: number;
  running: boolean;
}

const TAU = Math.PI * 2;
const CELL = 40;
const MIN_SCREEN_RADIUS = 2.2;
const HIT_TOLERANCE_PX = 4;
const LABEL_ZOOM = 1.6;
const LABEL_MAX = 350;

const cellKey = (cx: number, cy: number) => (cx + 32768) * 65536 + (cy + 32768);
const endpoint = (v: SimNode | string) => (typeof v === "string" ? v : v.id);

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
  private readonly sim: Simulation<SimNode, SimLink>;
  private readonly linkForce: ForceLink<SimNode, SimLink>;

  private t = { k: 1, x: 0, y: 0 };
  private autoFit = true;
  private raf = 0;
  private dirty = true;
  private destroyed = false;

  private hovered: SimNode | null = null;
  private selected: SimNode | null = null;
  private highlighted = new Set<string>();

  private grid = new Map<number, SimNode[]>();
  private gridDirty = true;

  private pointer: {
    id: number;
    mode: "node" | "pan";
    node?: SimNode;
    sx: number;
    sy: number;
    tx: number;
    ty: number;
    moved: boolean;
  } | null = null;

  private drawTotalMs = 0;
  private tickTotalMs = 0;
  readonly stats: EngineStats = {
    frames: 0,
    ticks: 0,
    lastDrawMs: 0,
    meanDrawMs: 0,
    meanTickMs: 0,
    nodes: 0,
    edges: 0,
    running: false,
  };

  private readonly resizeObserver: ResizeObserver;
  private readonly listeners: [EventTarget, string, EventListener, AddEventListenerOptions?][] = [];

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly callbacks: EngineCallbacks = {},
  ) {
    const ctx = canvas.getContext("2d", { alpha: false });
    if (!ctx) throw new Error("canvas 2d context unavailable");
    this.ctx = ctx;
    const style = getComputedStyle(canvas);
    this.colours = Object.fromEntries(
      ALL_LAYERS.map((l) => [l, style.getPropertyValue(`--${l}`).trim() || LAYER_COLOURS[l]]),
    ) as Record<Layer, string>;

    this.linkForce = forceLink<SimNode, SimLink>([])
      .id((d) => d.id)
      // hubs (a dataset with all its patients, a code with all its uses) get longer, weaker spokes,
      // so that charge can spread their neighbours instead of packing them into a ring
      .distance((l) => {
        const s = l.source as SimNode;
        const t = l.target as SimNode;
        return 16 + s.r + t.r + 2.2 * Math.sqrt(Math.max(s.degree, t.degree));
      })
      .strength(
        (l) => 0.8 / Math.sqrt(Math.max(1, (l.source as SimNode).degree, (l.target as SimNode).degree)),
      );
    this.sim = forceSimulation<SimNode, SimLink>([])
      .force("link", this.linkForce)
      .force("charge", forceManyBody<SimNode>().strength(-38).theta(0.9).distanceMax(420))
      .force("x", forceX<SimNode>(0).strength(0.045))
      .force("y", forceY<SimNode>(0).strength(0.045))
      .velocityDecay(0.38)
      .alphaDecay(0.03)
      .stop();

    this.on(canvas, "pointerdown", this.onPointerDown as EventListener);
    this.on(canvas, "pointermove", this.onPointerMove as EventListener);
    this.on(canvas, "pointerup", this.onPointerUp as EventListener);
    this.on(canvas, "pointercancel", this.onPointerUp as EventListener);
    this.on(canvas, "pointerleave", this.onPointerLeave as EventListener);
    this.on(canvas, "wheel", this.onWheel as EventListener, { passive: false });
    this.on(canvas, "dblclick", this.onDoubleClick as EventListener);
    this.on(canvas, "keydown", this.onKeyDown as EventListener);

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
        const a = Math.random() * TAU;
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
      links.push({ id: l.id, type: l.type, source: s, target: t });
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

    if (this.selected && !next.has(this.selected.id)) this.selected = null;
    if (this.hovered && !next.has(this.hovered.id)) this.hovered = null;
    this.selected = this.selected ? next.get(this.selected.id)! : null;

    this.highlighted = this.selected ? new Set(this.adjacency.get(this.selected.id) ?? []) : new Set();

    // links first emptied, so that the link force never resolves new ids against the old nodes
    this.linkForce.links([]);
    this.sim.nodes(this.nodes);
    this.linkForce.links(this.links);
    this.sim.alpha(mode === "merge" ? 0.5 : 1);
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
    this.t = { k, x: sx - (sx - this.t.x) * f, y: sy - (sy - this.t.y) * f };
    this.autoFit = false;
    this.invalidate();
  }

  panBy(dx: number, dy: number) {
    this.t = { ...this.t, x: this.t.x + dx, y: this.t.y + dy };
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
    this.t = { k, x: this.width / 2 - n.x * k, y: this.height / 2 - n.y * k };
    this.autoFit = false;
    this.invalidate();
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

  /** keep the simulation stepping (for measuring a sustained animation) */
  reheat(alpha = 1) {
    this.sim.alpha(alpha);
    this.invalidate();
  }

  destroy() {
    this.destroyed = true;
    if (this.raf) cancelAnimationFrame(this.raf);
    this.resizeObserver.disconnect();
    for (const [target, type, fn, opts] of this.listeners) target.removeEventListener(type, fn, opts);
    this.sim.stop();
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
    const running = this.sim.alpha() > this.sim.alphaMin() || this.pointer?.mode === "node";
    this.stats.running = running;
    if (running) {
      const t0 = performance.now();
      this.sim.tick();
      this.tickTotalMs += performance.now() - t0;
      this.stats.ticks++;
      this.stats.meanTickMs = this.tickTotalMs / this.stats.ticks;
      this.gridDirty = true;
      this.dirty = true;
      if (this.autoFit) this.fitNow(0.2);
    }
    if (this.dirty) {
      this.dirty = false;
      const t0 = performance.now();
      this.draw();
      const ms = performance.now() - t0;
      this.stats.frames++;
      this.stats.lastDrawMs = ms;
      this.drawTotalMs += ms;
      this.stats.meanDrawMs = this.drawTotalMs / this.stats.frames;
    }
    if (running) this.schedule();
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
    if (!this.nodes.length || !this.width) return;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const n of this.nodes) {
      if (n.x === undefined || n.y === undefined) continue;
      if (n.x < x0) x0 = n.x;
      if (n.x > x1) x1 = n.x;
      if (n.y < y0) y0 = n.y;
      if (n.y > y1) y1 = n.y;
    }
    if (!Number.isFinite(x0)) return;
    const pad = 30;
    const k = Math.min(
      4,
      Math.max(
        0.05,
        Math.min(
          (this.width - 2 * pad) / Math.max(1, x1 - x0),
          (this.height - 2 * pad) / Math.max(1, y1 - y0),
        ),
      ),
    );
    const target = { k, x: this.width / 2 - ((x0 + x1) / 2) * k, y: this.height / 2 - ((y0 + y1) / 2) * k };
    const lerp = (a: number, b: number) => a + (b - a) * ease;
    this.t = { k: lerp(this.t.k, target.k), x: lerp(this.t.x, target.x), y: lerp(this.t.y, target.y) };
  }

  // ---- painting -----------------------------------------------------------------------------

  private draw() {
    const { ctx, dpr, t } = this;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fbfcfe";
    ctx.fillRect(0, 0, this.width, this.height);
    if (!this.nodes.length) return;
    ctx.setTransform(dpr * t.k, 0, 0, dpr * t.k, dpr * t.x, dpr * t.y);

    // the visible world rectangle (with a margin for radii), for culling
    const m = 20 / t.k;
    const vx0 = -t.x / t.k - m;
    const vy0 = -t.y / t.k - m;
    const vx1 = (this.width - t.x) / t.k + m;
    const vy1 = (this.height - t.y) / t.k + m;
    const visible = (n: SimNode) => n.x! >= vx0 && n.x! <= vx1 && n.y! >= vy0 && n.y! <= vy1;
    const focus = this.selected;
    const lit = (n: SimNode) => !focus || n === focus || this.highlighted.has(n.id);

    // relationships: one path for all, then the selection's on top
    ctx.lineWidth = 0.9 / t.k;
    ctx.strokeStyle = focus ? "rgba(100,116,139,0.13)" : "rgba(100,116,139,0.38)";
    ctx.beginPath();
    const incident: SimLink[] = [];
    for (const l of this.links) {
      const s = l.source as SimNode;
      const d = l.target as SimNode;
      if (focus && (s === focus || d === focus)) {
        incident.push(l);
        continue;
      }
      if (
        (s.x! < vx0 && d.x! < vx0) ||
        (s.x! > vx1 && d.x! > vx1) ||
        (s.y! < vy0 && d.y! < vy0) ||
        (s.y! > vy1 && d.y! > vy1)
      )
        continue;
      ctx.moveTo(s.x!, s.y!);
      ctx.lineTo(d.x!, d.y!);
    }
    ctx.stroke();
    if (incident.length) {
      ctx.lineWidth = 1.6 / t.k;
      ctx.strokeStyle = "rgba(15,42,82,0.75)";
      ctx.beginPath();
      for (const l of incident) {
        ctx.moveTo((l.source as SimNode).x!, (l.source as SimNode).y!);
        ctx.lineTo((l.target as SimNode).x!, (l.target as SimNode).y!);
      }
      ctx.stroke();
    }

    // nodes: one path per layer colour (dimmed ones first when something is selected)
    const minR = MIN_SCREEN_RADIUS / t.k;
    ctx.lineWidth = 1 / t.k;
    ctx.strokeStyle = "#ffffff";
    for (const pass of focus ? [false, true] : [true]) {
      ctx.globalAlpha = pass ? 1 : 0.22;
      for (const layer of ALL_LAYERS) {
        const list = this.byLayer.get(layer);
        if (!list?.length) continue;
        ctx.fillStyle = this.colours[layer];
        ctx.beginPath();
        let any = false;
        for (const n of list) {
          if (!visible(n) || (focus && lit(n) !== pass)) continue;
          const r = Math.max(n.r, minR);
          ctx.moveTo(n.x! + r, n.y!);
          ctx.arc(n.x!, n.y!, r, 0, TAU);
          any = true;
        }
        if (!any) continue;
        ctx.fill();
        if (t.k > 0.35) ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;

    // rings for the selected and hovered node
    const ring = (n: SimNode | null, colour: string, width: number) => {
      if (!n) return;
      ctx.beginPath();
      ctx.arc(n.x!, n.y!, Math.max(n.r, minR) + 3 / t.k, 0, TAU);
      ctx.lineWidth = width / t.k;
      ctx.strokeStyle = colour;
      ctx.stroke();
    };
    ring(focus, "#0f2a52", 2.5);
    if (this.hovered !== focus) ring(this.hovered, "#1f5fbf", 2);

    // labels: the selection, its neighbours and the hovered node; everything visible when zoomed in
    const labelled: SimNode[] = [];
    if (t.k >= LABEL_ZOOM) {
      for (const n of this.nodes) if (visible(n) && lit(n)) labelled.push(n);
    } else if (focus && this.highlighted.size <= 40) {
      for (const id of this.highlighted) labelled.push(this.byId.get(id)!);
    }
    if (labelled.length > LABEL_MAX) labelled.length = LABEL_MAX;
    if (focus) labelled.push(focus);
    if (this.hovered) labelled.push(this.hovered);
    if (labelled.length) {
      ctx.font = `${12 / t.k}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
      ctx.textBaseline = "middle";
      ctx.lineJoin = "round";
      ctx.lineWidth = 3 / t.k;
      ctx.strokeStyle = "rgba(255,255,255,0.92)";
      ctx.fillStyle = "#1b2433";
      for (const n of labelled) {
        const x = n.x! + Math.max(n.r, minR) + 4 / t.k;
        ctx.strokeText(n.caption, x, n.y!);
        ctx.fillText(n.caption, x, n.y!);
      }
    }
  }

  // ---- hit-testing ----------------------------------------------------------------------------

  private buildGrid() {
    this.grid.clear();
    for (const n of this.nodes) {
      if (n.x === undefined || n.y === undefined) continue;
      const key = cellKey(Math.floor(n.x / CELL), Math.floor(n.y / CELL));
      const cell = this.grid.get(key);
      if (cell) cell.push(n);
      else this.grid.set(key, [n]);
    }
    this.gridDirty = false;
  }

  /** the node under a screen point (CSS pixels relative to the canvas), nearest first */
  nodeAt(sx: number, sy: number): SimNode | null {
    if (this.gridDirty) this.buildGrid();
    const wx = (sx - this.t.x) / this.t.k;
    const wy = (sy - this.t.y) / this.t.k;
    const minR = MIN_SCREEN_RADIUS / this.t.k;
    const tol = HIT_TOLERANCE_PX / this.t.k;
    const reach = Math.ceil((12 + tol + minR) / CELL);
    const cx = Math.floor(wx / CELL);
    const cy = Math.floor(wy / CELL);
    let best: SimNode | null = null;
    let bestD = Infinity;
    for (let i = cx - reach; i <= cx + reach; i++) {
      for (let j = cy - reach; j <= cy + reach; j++) {
        const cell = this.grid.get(cellKey(i, j));
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

  // ---- input --------------------------------------------------------------------------------

  private on(target: EventTarget, type: string, fn: EventListener, opts?: AddEventListenerOptions) {
    target.addEventListener(type, fn, opts);
    this.listeners.push([target, type, fn, opts]);
  }

  private local(e: MouseEvent) {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private setHover(n: SimNode | null) {
    if (n === this.hovered) return;
    this.hovered = n;
    this.canvas.style.cursor = n ? "pointer" : this.pointer?.mode === "pan" ? "grabbing" : "grab";
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
      mode: hit ? "node" : "pan",
      node: hit ?? undefined,
      sx: p.x,
      sy: p.y,
      tx: this.t.x,
      ty: this.t.y,
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
    if (ptr.mode === "pan") {
      this.t = { ...this.t, x: ptr.tx + (p.x - ptr.sx), y: ptr.ty + (p.y - ptr.sy) };
      this.autoFit = false;
      this.invalidate();
    } else if (ptr.node) {
      ptr.node.fx = (p.x - this.t.x) / this.t.k;
      ptr.node.fy = (p.y - this.t.y) / this.t.k;
      this.autoFit = false;
      this.sim.alphaTarget(0.25);
      if (this.sim.alpha() < 0.25) this.sim.alpha(0.25);
      this.invalidate();
    }
  };

  private readonly onPointerUp = (e: PointerEvent) => {
    const ptr = this.pointer;
    if (!ptr || ptr.id !== e.pointerId) return;
    this.pointer = null;
    if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    if (ptr.mode === "node" && ptr.node) {
      ptr.node.fx = null;
      ptr.node.fy = null;
      this.sim.alphaTarget(0);
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

  private readonly onKeyDown = (e: KeyboardEvent) => {
    const step = 60;
    switch (e.key) {
      case "+":
      case "=":
        this.zoomBy(1.25);
        break;
      case "-":
      case "_":
        this.zoomBy(0.8);
        break;
      case "0":
        this.fit();
        break;
      case "ArrowLeft":
        this.panBy(step, 0);
        break;
      case "ArrowRight":
        this.panBy(-step, 0);
        break;
      case "ArrowUp":
        this.panBy(0, step);
        break;
      case "ArrowDown":
        this.panBy(0, -step);
        break;
      case "Enter":
        if (this.selected) this.callbacks.onActivate?.(this.selected.id);
        break;
      case "Escape":
        this.callbacks.onSelect?.(null);
        break;
      default:
        return;
    }
    e.preventDefault();
  };
}
