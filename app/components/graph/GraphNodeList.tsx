import { useId, useMemo, useState } from "react";
import type { Layer } from "../../types";
import { formatNumber, plural } from "../ui/format";
import { layerLabel } from "../ui/labels";
import { ALL_LAYERS, type VNode } from "./types";

/**
 * The drawing's text alternative: every node it shows, grouped by layer, each a button that selects
 * it (the inspector then lists its properties and relationships, whose related nodes are buttons too).
 * Closed at first, and rendered only when open: a thousand buttons are not sent with every page.
 */
export function GraphNodeList({
  nodes,
  selectedId,
  onSelect,
}: {
  nodes: readonly VNode[];
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  const uid = useId();
  const [open, setOpen] = useState(false);
  const byLayer = useMemo(() => {
    const m = new Map<Layer, VNode[]>(ALL_LAYERS.map((l) => [l, []]));
    for (const n of nodes) m.get(n.layer)?.push(n);
    for (const list of m.values()) list.sort((a, b) => a.caption.localeCompare(b.caption));
    return m;
  }, [nodes]);
  return (
    <details
      className="graph-node-list card"
      data-testid="graph-node-list"
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary>The drawing as a list: {plural(nodes.length, "node")}, by layer</summary>
      {open ? (
        <div className="graph-node-groups">
          {ALL_LAYERS.filter((l) => byLayer.get(l)!.length).map((l) => (
            <div key={l} className="graph-node-group">
              <p id={`${uid}-${l}`} className="graph-node-group-title">
                <span className={`dot dot-${l}`} aria-hidden /> {layerLabel(l)}{" "}
                <span className="muted">({formatNumber(byLayer.get(l)!.length)})</span>
              </p>
              <ul aria-labelledby={`${uid}-${l}`}>
                {byLayer.get(l)!.map((n) => (
                  <li key={n.id}>
                    <button
                      type="button"
                      className="linklike"
                      aria-current={n.id === selectedId ? "true" : undefined}
                      onClick={() => onSelect(n.id)}
                      data-testid="graph-node-list-item"
                      data-node-id={n.id}
                    >
                      {n.caption}
                    </button>{" "}
                    <span className="muted small">{n.label}</span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      ) : null}
    </details>
  );
}
