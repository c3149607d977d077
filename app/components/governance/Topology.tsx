import type { Topology as TopologyData } from "../../types";

/**
 * The components' dependency graph as a static SVG: the hub in the middle, the components on an
 * ellipse around it (in an order that keeps the components that talk to each other side by side),
 * straight arrows clipped to the boxes, boxes coloured by health with the health also written out,
 * each box a link to its diagnosis. Drawn on the server: it needs no script and reads the same
 * before and after hydration.
 */

const W = 200;
const H = 50;
const RX = 350;
const RY = 185;
const PAD = 12;
/** neighbours on the ring: the language back end beside the graph store, the dataspace services together */
const RING = [
  "identity-provider",
  "graph-store",
  "language-backend",
  "issuer",
  "identity-hub",
  "connector",
  "tenant-manager",
];

export function layout(t: TopologyData) {
  const centre = t.nodes.find((n) => n.id === "hub") ?? t.nodes[0];
  const ring = t.nodes
    .filter((n) => n !== centre)
    .sort((a, b) => {
      const ia = RING.indexOf(a.id);
      const ib = RING.indexOf(b.id);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.id.localeCompare(b.id);
    });
  const cx = PAD + RX + W / 2;
  const cy = PAD + RY + H / 2;
  const pos = new Map<string, { x: number; y: number }>();
  if (centre) pos.set(centre.id, { x: cx, y: cy });
  ring.forEach((n, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / ring.length;
    pos.set(n.id, { x: cx + RX * Math.cos(a), y: cy + RY * Math.sin(a) });
  });
  return { pos, width: 2 * (PAD + RX) + W, height: 2 * (PAD + RY) + H };
}

/** where the line from a box's centre towards (dx, dy) leaves the box */
function exit(c: { x: number; y: number }, dx: number, dy: number, gap = 0) {
  const t = Math.min((W / 2 + gap) / Math.abs(dx || 1e-9), (H / 2 + gap) / Math.abs(dy || 1e-9));
  return { x: c.x + dx * t, y: c.y + dy * t };
}

export function Topology({ data }: { data: TopologyData }) {
  const { pos, width, height } = layout(data);
  return (
    <figure className="topology" data-testid="topology">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        role="group"
        aria-labelledby="topology-title topology-desc"
      >
        <title id="topology-title">Dependency graph of the hub&apos;s components</title>
        <desc id="topology-desc">
          {data.edges.map((e) => `${e.source} ${e.label} ${e.target}`).join("; ")}
        </desc>
        <defs>
          <marker
            id="topology-arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" className="topology-arrowhead" />
          </marker>
        </defs>
        {data.edges.map((e) => {
          const a = pos.get(e.source);
          const b = pos.get(e.target);
          if (!a || !b) return null;
          const from = exit(a, b.x - a.x, b.y - a.y);
          const to = exit(b, a.x - b.x, a.y - b.y, 3);
          return (
            <path
              key={e.id}
              className="topology-edge"
              d={`M ${from.x.toFixed(1)} ${from.y.toFixed(1)} L ${to.x.toFixed(1)} ${to.y.toFixed(1)}`}
              markerEnd="url(#topology-arrow)"
              data-testid={`edge-${e.source}-${e.target}`}
            >
              <title>{`${e.source} → ${e.target}: ${e.label}`}</title>
            </path>
          );
        })}
        {data.nodes.map((n) => {
          const p = pos.get(n.id)!;
          const box = (
            <g className={`topology-node health-${n.health}`} data-testid={`node-${n.id}`}>
              <rect x={p.x - W / 2} y={p.y - H / 2} width={W} height={H} rx={8} />
              <text x={p.x} y={p.y - 5} className="topology-label" textAnchor="middle">
                {n.label}
              </text>
              <text x={p.x} y={p.y + 13} className="topology-health" textAnchor="middle">
                {n.health === "self" ? "this server" : `${n.health}${n.embedded ? " · embedded" : ""}`}
              </text>
              <title>{`${n.label}: ${n.kind}`}</title>
            </g>
          );
          return n.id === "hub" ? (
            <g key={n.id}>{box}</g>
          ) : (
            <a key={n.id} href={`/components/${n.id}`}>
              {box}
            </a>
          );
        })}
      </svg>
      <figcaption className="small muted">
        Arrows point from a component to what it depends on. Green: up, amber: degraded, red: down. Open a box
        for its diagnosis.
      </figcaption>
    </figure>
  );
}
