/**
 * Where the explorer writes node labels, in screen pixels: beside each node (right, left, above,
 * below, in that order of preference), never over another label, never past the canvas edges or
 * over the areas given as obstacles (the legend), and at most 180 px wide (longer captions end
 * with "…"; the inspector shows the whole text). Labels come in priority order: the selection and
 * the hovered node first (always placed, moved inside the canvas if need be), then the others,
 * which are dropped when no place is free. Pure: the caller measures text.
 */

export interface LabelCandidate {
  id: string;
  text: string;
  /** the node's centre and radius, in screen pixels */
  x: number;
  y: number;
  r: number;
  /** placed whatever the overlap (the selection, the hovered node) */
  pinned?: boolean;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** the caption cut to fit maxWidth, with an ellipsis */
export function fitText(text: string, maxWidth: number, measure: (t: string) => number): string {
  if (measure(text) <= maxWidth) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(`${text.slice(0, mid).trimEnd()}…`) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo).trimEnd()}…`;
}

export function placeLabels(
  candidates: LabelCandidate[],
  opts: { width: number; height: number; measure: (text: string) => number; obstacles?: Box[] },
) {
  const maxWidth = 180;
  const h = 16;
  const gap = 4;
  const placed: (Box & { id: string; text: string })[] = [];
  const blocked: Box[] = [...(opts.obstacles ?? [])];
  const seen = new Set<string>();
  const inside = (b: Box) => b.x >= 0 && b.y >= 0 && b.x + b.w <= opts.width && b.y + b.h <= opts.height;
  for (const c of candidates) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    const text = fitText(c.text, maxWidth, opts.measure);
    const w = Math.ceil(opts.measure(text)) + 4;
    const d = c.r + gap;
    const options: Box[] = [
      { x: c.x + d, y: c.y - h / 2, w, h },
      { x: c.x - d - w, y: c.y - h / 2, w, h },
      { x: c.x - w / 2, y: c.y - d - h, w, h },
      { x: c.x - w / 2, y: c.y + d, w, h },
    ];
    let box = options.find((b) => inside(b) && !blocked.some((o) => overlaps(b, o)));
    if (!box && c.pinned) {
      // the selection's label is always written: beside the node, moved inside the canvas
      const b = options[0];
      box = {
        ...b,
        x: Math.min(Math.max(0, b.x), Math.max(0, opts.width - w)),
        y: Math.min(Math.max(0, b.y), Math.max(0, opts.height - h)),
      };
    }
    if (!box) continue;
    blocked.push(box);
    placed.push({ ...box, id: c.id, text });
  }
  return placed;
}
