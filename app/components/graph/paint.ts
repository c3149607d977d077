import type { Layer } from "../../types";
import { placeLabels, type Box, type LabelCandidate } from "./label-layout";
import type { SimLink, SimNode } from "./sim";
import { ALL_LAYERS } from "./types";

/**
 * Painting one frame of the graph explorer: relationships, nodes by layer colour, the rings of the
 * selected and hovered node, and labels placed by label-layout.ts (never overlapping, inside the
 * canvas, off the controls drawn over it). World coordinates for the graph, screen pixels for labels.
 */

export interface Scene {
  width: number;
  height: number;
  dpr: number;
  t: { k: number; x: number; y: number };
  nodes: SimNode[];
  links: SimLink[];
  byId: Map<string, SimNode>;
  byLayer: Map<Layer, SimNode[]>;
  colours: Record<Layer, string>;
  selected: SimNode | null;
  hovered: SimNode | null;
  highlighted: Set<string>;
  obstacles: Box[];
}

const TAU = Math.PI * 2;
export const MIN_SCREEN_RADIUS = 2.2;
const LABEL_ZOOM = 1.6;
const LABEL_MAX = 350;
/** a drawing this small (the overview) has every node labelled at any zoom */
export const LABEL_ALL_MAX = 60;
/** relationships are 0.9 CSS px wide, nodes outlined 1 px: at most this many device pixels (see hairline) */
const HAIRLINE_DEVICE_PX = 0.98;
const FONT = `12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;

/** a stroke width in CSS px, narrowed to at most HAIRLINE_DEVICE_PX device pixels */
export const hairline = (cssPx: number, dpr: number) => Math.min(cssPx, HAIRLINE_DEVICE_PX / dpr);

/** paints one frame; answers the ids of the nodes whose label it wrote */
export function paintScene(ctx: CanvasRenderingContext2D, scene: Scene): string[] {
  const { dpr, t } = scene;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#fbfcfe";
  ctx.fillRect(0, 0, scene.width, scene.height);
  if (!scene.nodes.length) return [];
  ctx.setTransform(dpr * t.k, 0, 0, dpr * t.k, dpr * t.x, dpr * t.y);

  // the visible world rectangle (with a margin for radii), for culling
  const m = 20 / t.k;
  const vx0 = -t.x / t.k - m;
  const vy0 = -t.y / t.k - m;
  const vx1 = (scene.width - t.x) / t.k + m;
  const vy1 = (scene.height - t.y) / t.k + m;
  const visible = (n: SimNode) => n.x! >= vx0 && n.x! <= vx1 && n.y! >= vy0 && n.y! <= vy1;
  const focus = scene.selected;
  const lit = (n: SimNode) => !focus || n === focus || scene.highlighted.has(n.id);

  // Relationships and node outlines are hairlines, which the rasteriser draws directly (decision
  // 0077); the relationships' alpha grows by as much as their width shrinks, so they keep their weight.
  const linkPx = hairline(0.9, dpr);
  const ink = 0.9 / linkPx;

  // relationships: one path for all, then the selection's on top
  ctx.lineWidth = linkPx / t.k;
  ctx.strokeStyle = `rgba(100,116,139,${((focus ? 0.13 : 0.38) * ink).toFixed(3)})`;
  ctx.beginPath();
  const incident: SimLink[] = [];
  for (const l of scene.links) {
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
  ctx.lineWidth = hairline(1, dpr) / t.k;
  ctx.strokeStyle = "#ffffff";
  for (const pass of focus ? [false, true] : [true]) {
    ctx.globalAlpha = pass ? 1 : 0.22;
    for (const layer of ALL_LAYERS) {
      const list = scene.byLayer.get(layer);
      if (!list?.length) continue;
      ctx.fillStyle = scene.colours[layer];
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
  if (scene.hovered !== focus) ring(scene.hovered, "#1f5fbf", 2);

  // labels: the selection, its neighbours and the hovered node; everything visible when zoomed in or
  // when the drawing is small (the overview), most connected first
  const labelled: SimNode[] = [];
  if (scene.selected) labelled.push(scene.selected);
  if (scene.hovered) labelled.push(scene.hovered);
  if (t.k >= LABEL_ZOOM || scene.nodes.length <= LABEL_ALL_MAX) {
    const all = scene.nodes.filter(
      (n) => visible(n) && lit(n) && n !== scene.selected && n !== scene.hovered,
    );
    labelled.push(...all.sort((a, b) => b.degree - a.degree));
  } else if (focus && scene.highlighted.size <= 40) {
    // the neighbours, most connected first
    const near = [...scene.highlighted].map((id) => scene.byId.get(id)!).filter(Boolean);
    labelled.push(...near.sort((a, b) => b.degree - a.degree));
  }
  if (labelled.length > LABEL_MAX) labelled.length = LABEL_MAX;
  if (!labelled.length) return [];
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = FONT;
  const candidates: LabelCandidate[] = labelled.map((n) => ({
    id: n.id,
    text: n.caption,
    x: n.x! * t.k + t.x,
    y: n.y! * t.k + t.y,
    r: Math.max(n.r, minR) * t.k,
    pinned: n === scene.selected || n === scene.hovered,
  }));
  const placed = placeLabels(candidates, {
    width: scene.width,
    height: scene.height,
    measure: (s) => ctx.measureText(s).width,
    obstacles: scene.obstacles,
  });
  ctx.textBaseline = "middle";
  ctx.lineJoin = "round";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "rgba(255,255,255,0.92)";
  ctx.fillStyle = "#1b2433";
  for (const p of placed) {
    ctx.strokeText(p.text, p.x + 2, p.y + p.h / 2);
    ctx.fillText(p.text, p.x + 2, p.y + p.h / 2);
  }
  return placed.map((p) => p.id);
}
