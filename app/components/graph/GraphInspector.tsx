import type { NodeData } from "../../routes/graph.node/route";
import { PropertyTable } from "../ui/PropertyTable";
import { plural } from "../ui/format";
import { layerLabel } from "../ui/labels";

/**
 * The node inspector: label, layer, properties and relationships grouped by type, with the
 * "Expand" actions. Related nodes are buttons that select them (and centre them when drawn).
 */
export function GraphInspector({
  selectedId,
  data,
  loading,
  inDrawing,
  expanding,
  onSelect,
  onExpand,
  titleId,
}: {
  selectedId: string | null;
  data: NodeData | undefined;
  loading: boolean;
  inDrawing: boolean;
  expanding: boolean;
  onSelect: (id: string | null) => void;
  onExpand: (id: string, depth: 1 | 2) => void;
  /** the id of the selected node's heading, which takes the focus when a node is opened from the list */
  titleId?: string;
}) {
  if (!selectedId) {
    return (
      <aside className="inspector card" aria-label="Node inspector" data-testid="graph-inspector">
        <h2>Inspector</h2>
        <p className="muted">
          Click a node in the drawing, or find one by name, to see its properties and relationships.
        </p>
        <ul className="muted small plain">
          <li>Drag the background to pan, use the wheel to zoom.</li>
          <li>Double-click a node to expand its neighbourhood.</li>
          <li>Keyboard: + and − zoom, arrow keys pan, 0 fits the drawing, Esc clears the selection.</li>
        </ul>
      </aside>
    );
  }
  const current =
    data && ("node" in data ? data.node.id === selectedId : data.id === selectedId) ? data : undefined;
  return (
    <aside
      className="inspector card"
      aria-label="Node inspector"
      aria-busy={loading}
      data-testid="graph-inspector"
      data-node-id={selectedId}
    >
      <div className="inspector-head">
        <h2 id={titleId} tabIndex={-1} data-testid="inspector-title">
          {current && "node" in current ? current.node.caption : selectedId}
        </h2>
        <button
          type="button"
          className="close"
          aria-label="Clear the selection"
          onClick={() => onSelect(null)}
          data-testid="inspector-close"
        >
          ×
        </button>
      </div>
      {!current ? (
        <p className="muted" role="status">
          Loading…
        </p>
      ) : "error" in current ? (
        <p className="notice error" role="alert" data-testid="inspector-error">
          {current.error}
        </p>
      ) : (
        <>
          <p className="inspector-meta">
            <strong data-testid="inspector-label">{current.node.label}</strong>{" "}
            <span className={`layer-chip layer-chip-${current.node.layer}`}>
              <span className="swatch" aria-hidden />
              {layerLabel(current.node.layer)}
            </span>
          </p>
          <p className="muted small">
            <code data-testid="inspector-id">{current.node.id}</code>
          </p>
          <div className="actions">
            <button
              type="button"
              className="button"
              disabled={expanding}
              onClick={() => onExpand(current.node.id, 1)}
              data-testid="inspector-expand"
            >
              {expanding ? "Expanding…" : inDrawing ? "Expand" : "Add to drawing"}
            </button>
            <button
              type="button"
              className="button ghost"
              disabled={expanding}
              onClick={() => onExpand(current.node.id, 2)}
              data-testid="inspector-expand-2"
            >
              Expand 2 hops
            </button>
          </div>
          {!inDrawing ? <p className="muted small">This node is not in the drawing yet.</p> : null}

          <h3>Properties</h3>
          <PropertyTable properties={current.node.properties} rawKeys testId="inspector-properties" />

          <h3>
            Relationships{" "}
            <span className="muted small">
              ({current.truncated ? `first ${current.relationshipCount}` : current.relationshipCount})
            </span>
          </h3>
          {current.groups.length ? (
            <div className="rel-groups" data-testid="inspector-relationships">
              {current.groups.map((g) => (
                <details
                  key={`${g.direction}-${g.type}`}
                  open={g.nodes.length <= 12}
                  className="rel-group"
                  data-rel-type={g.type}
                >
                  <summary>
                    <span className="rel-type">
                      {g.direction === "out" ? "→" : "←"} {g.type}
                    </span>{" "}
                    <span className="muted small">{plural(g.nodes.length, "node")}</span>
                  </summary>
                  <ul className="plain rel-list">
                    {g.nodes.map((n) => (
                      <li key={n.id}>
                        <button
                          type="button"
                          className="linklike"
                          onClick={() => onSelect(n.id)}
                          title={n.id}
                        >
                          <span className={`dot dot-${n.layer}`} aria-hidden />
                          {n.caption} <span className="muted small">{n.label}</span>
                        </button>
                      </li>
                    ))}
                  </ul>
                </details>
              ))}
            </div>
          ) : (
            <p className="muted">No relationships.</p>
          )}
        </>
      )}
    </aside>
  );
}
