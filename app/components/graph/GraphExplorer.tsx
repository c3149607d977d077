import { Form, useFetcher, useSubmit } from "@remix-run/react";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import type { Layer } from "../../types";
import type { ExpandData } from "../../routes/graph.expand/route";
import type { NodeData } from "../../routes/graph.node/route";
import { Filter } from "../route-kit/Filter";
import { optionList } from "../route-kit/options";
import { AppLink } from "../ui/app-link";
import { formatNumber, plural } from "../ui/format";
import { layerLabel, layersShort, layerTitle } from "../ui/labels";
import type { GraphEngine } from "./engine";
import { GraphCanvas } from "./GraphCanvas";
import { GraphInspector } from "./GraphInspector";
import { GraphNodeList } from "./GraphNodeList";
import { findMatches } from "./find";
import { ALL_LAYERS, LAYER_OPTIONS, LIMIT_OPTIONS, ZOOM_STEP, type VGraph, type VNode } from "./types";
import type { DrawingState } from "./use-drawing";

const MAX_MATCHES = 8;
/** the buttons over the drawing: what each shows, its name, its test id and what it does */
const ZOOM_CONTROLS: [string, string, string, (e: GraphEngine) => void][] = [
  ["+", "Zoom in", "graph-zoom-in", (e) => e.zoomBy(ZOOM_STEP)],
  ["−", "Zoom out", "graph-zoom-out", (e) => e.zoomBy(1 / ZOOM_STEP)],
  ["⤢", "Fit the drawing", "graph-fit", (e) => e.fit()],
];
/** what the explorer holds while its drawing loads or failed to: nothing to find, list or draw */
const NO_GRAPH: VGraph = { nodes: [], edges: [] };

/** The graph explorer, from the page's loader data (its controls, the scope's totals and error) and the drawing, loaded after hydration (./use-drawing.ts) */
export function GraphExplorer({
  drawing,
  meta,
  layer,
  persona,
  limit,
  overview,
  personas,
  error,
}: {
  drawing: DrawingState;
  /** the scope's totals and what the graph query returned for it (expansions come on top) */
  meta: { totalNodes: number; totalEdges: number; returnedNodes: number; returnedEdges: number };
  layer: string;
  persona: string;
  limit: number;
  /** the first view: the scope's overview, a few labelled nodes per layer (app/lib/graph/overview.ts) */
  overview: boolean;
  personas: { value: string; label: string; layers: readonly Layer[] }[];
  error: string | null;
}) {
  const uid = useId();
  const submit = useSubmit();
  const engineRef = useRef<GraphEngine | null>(null);
  const ready = drawing.state === "ready";
  const graph = ready ? drawing.graph : NO_GRAPH;
  const focus = ready ? drawing.focus : null;
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [hoverId, setHoverId] = useState<string | null>(null);
  const [counts, setCounts] = useState({ nodes: graph.nodes.length, edges: graph.edges.length });
  const [added, setAdded] = useState<VNode[]>([]);
  const [notice, setNotice] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [find, setFind] = useState("");

  const nodeFetcher = useFetcher<NodeData>();
  const expandFetcher = useFetcher<ExpandData>();
  const anchorRef = useRef<string | null>(null);
  const mergedRef = useRef<ExpandData | undefined>(undefined);

  // a new base graph (other layer, persona or limit) starts a fresh drawing
  useEffect(() => {
    setAdded([]);
    setNotice(null);
    if (ready) setSelectedId((s) => (s && graph.nodes.some((n) => n.id === s) ? s : focus));
  }, [graph, focus, ready]);

  const allNodes = useMemo(() => [...graph.nodes, ...added], [graph, added]);
  const byId = useMemo(() => new Map(allNodes.map((n) => [n.id, n])), [allNodes]);

  // inspector data follows the selection
  const loadNode = nodeFetcher.load;
  useEffect(() => {
    if (selectedId) loadNode(`/graph/node?id=${encodeURIComponent(selectedId)}`);
  }, [selectedId, loadNode]);

  // merge each expansion once
  useEffect(() => {
    const data = expandFetcher.data;
    if (!data || data === mergedRef.current || expandFetcher.state !== "idle") return;
    mergedRef.current = data;
    if ("error" in data) {
      setNotice({ tone: "error", text: data.error });
      return;
    }
    const engine = engineRef.current;
    if (!engine) return;
    const result = engine.setData(data, "merge", anchorRef.current);
    setCounts({ nodes: engine.stats.nodes, edges: engine.stats.edges });
    setAdded((prev) => {
      const known = new Set([...graph.nodes, ...prev].map((n) => n.id));
      return [...prev, ...data.nodes.filter((n) => !known.has(n.id))];
    });
    engine.setSelected(selectedId);
    const around = data.nodes.find((n) => n.id === data.id)?.caption ?? data.id;
    setNotice({
      tone: "ok",
      text:
        result.addedNodes || result.addedEdges
          ? `Added ${plural(result.addedNodes, "node")} and ${plural(result.addedEdges, "relationship")} around ${around}${data.truncated ? " (the neighbourhood was cut at the expansion limit)" : ""}.`
          : `The neighbourhood of ${around} (depth ${data.depth}) is already drawn.`,
    });
  }, [expandFetcher.data, expandFetcher.state, graph, selectedId]);

  const loadExpand = expandFetcher.load;
  const expand = useCallback(
    (id: string, depth: 1 | 2) => {
      anchorRef.current = id;
      loadExpand(`/graph/expand?id=${encodeURIComponent(id)}&depth=${depth}`);
    },
    [loadExpand],
  );

  const select = useCallback((id: string | null) => {
    setSelectedId(id);
    if (id && engineRef.current?.has(id)) engineRef.current.centerOn(id);
  }, []);

  // a node opened from the list: the focus moves to its heading in the inspector, so its actions
  // come next on Tab (not after the thousand buttons of the list)
  const inspectorTitleId = `${uid}-inspector-title`;
  const focusInspector = useRef(false);
  const openFromList = useCallback(
    (id: string) => {
      focusInspector.current = true;
      select(id);
    },
    [select],
  );
  useEffect(() => {
    if (!focusInspector.current || !selectedId) return;
    focusInspector.current = false;
    document.getElementById(inspectorTitleId)?.focus();
  }, [selectedId, inspectorTitleId]);

  const matches = useMemo(() => findMatches(allNodes, find, MAX_MATCHES), [find, allNodes]);
  const pickMatch = (id: string) => {
    select(id);
    setFind("");
  };

  const perLayer = useMemo(() => {
    const c = Object.fromEntries(ALL_LAYERS.map((l) => [l, 0])) as Record<Layer, number>;
    for (const n of allNodes) c[n.layer]++;
    return c;
  }, [allNodes]);

  useEffect(() => {
    if (notice?.tone !== "ok") return;
    const t = setTimeout(() => setNotice(null), 8000);
    return () => clearTimeout(t);
  }, [notice]);

  const hovered = hoverId ? byId.get(hoverId) : undefined;
  const helpId = `${uid}-help`;
  const canvasLabel = ready
    ? `Knowledge graph drawing with ${plural(counts.nodes, "node")} and ${plural(counts.edges, "relationship")}.`
    : drawing.state === "loading"
      ? "Knowledge graph drawing, loading."
      : "Knowledge graph drawing: it could not be loaded.";

  return (
    <div className="graph-explorer" data-testid="graph-explorer">
      {/* never shown or sent: Remix discovers the drawing's route from it before the fetcher loads
          (decision 0077); a form, not a link, so that the static walk does not follow it */}
      <Form action="/graph/drawing" hidden aria-hidden data-testid="graph-drawing-route" />
      <div className="toolbar graph-controls">
        <Form
          method="get"
          className="graph-scope"
          aria-label="Graph scope"
          data-testid="graph-controls"
          onChange={(e) => {
            if (!(e.target instanceof HTMLSelectElement)) return;
            // only the parameters that differ from the defaults, so shared links stay short
            const params = new URLSearchParams();
            for (const [k, v] of new FormData(e.currentTarget)) {
              // no layer and no limit: the overview (the first view)
              if (typeof v !== "string" || !v || (k === "layer" && v === "all")) continue;
              params.set(k, v);
            }
            submit(params, { method: "get", action: "/graph", replace: true, preventScrollReset: true });
          }}
        >
          <Filter label="Layer">
            <select name="layer" defaultValue={layer} data-testid="graph-layer">
              {optionList(LAYER_OPTIONS, (l) => [l, l === "all" ? "All layers" : layerLabel(l)])}
            </select>
          </Filter>
          <Filter label="Persona">
            <select name="persona" defaultValue={persona} data-testid="graph-persona">
              <option value="">No persona filter</option>
              {optionList(personas, (p) => [
                p.value,
                <>
                  {p.label} ({layersShort(p.layers)})
                </>,
              ])}
            </select>
          </Filter>
          <Filter label="Nodes">
            <select name="limit" defaultValue={overview ? "" : String(limit)} data-testid="graph-limit">
              <option value="">Overview</option>
              {optionList(
                [...new Set([...LIMIT_OPTIONS, limit])].sort((a, b) => a - b),
                (n) => [n, formatNumber(n)],
              )}
            </select>
          </Filter>
          <noscript>
            <button type="submit" className="button">
              Apply
            </button>
          </noscript>
        </Form>
        <div className="graph-find" role="search" aria-label="Find a node in the drawing">
          <Filter label="Find node">
            <input
              type="search"
              value={find}
              onChange={(e) => setFind(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === "Escape") setFind("");
                if (e.key === "Enter") {
                  e.preventDefault();
                  if (matches[0]) pickMatch(matches[0].node.id);
                }
              }}
              placeholder="Name, title or id"
              role="combobox"
              aria-autocomplete="list"
              aria-controls={`${uid}-matches`}
              aria-expanded={matches.length > 0}
              autoComplete="off"
              data-testid="graph-find"
            />
          </Filter>
          {matches.length ? (
            <ul id={`${uid}-matches`} className="find-results card" data-testid="graph-find-results">
              {matches.map(({ node: n, alike }) => (
                <li key={n.id}>
                  <button
                    type="button"
                    className="linklike"
                    onClick={() => pickMatch(n.id)}
                    data-testid="graph-find-result"
                    data-node-id={n.id}
                  >
                    <span className={`dot dot-${n.layer}`} aria-hidden />
                    {n.caption} <span className="muted small">{n.label}</span>
                    {alike ? (
                      <span className="muted small" data-testid="graph-find-alike">
                        {" "}
                        · {plural(alike, "more like it", "more like it")}
                      </span>
                    ) : null}
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </div>

      {error ? (
        <p className="notice error" role="alert" data-testid="graph-error">
          {error}
        </p>
      ) : null}
      {drawing.state === "ready" && drawing.focusError ? (
        <p className="notice error" role="alert" data-testid="graph-focus-error">
          {drawing.focusError}
        </p>
      ) : null}

      <p className="graph-meta" role="status" data-testid="graph-meta">
        {overview ? "Overview: the best-connected nodes of each layer, each labelled. " : null}
        Showing <strong data-testid="graph-meta-nodes">{formatNumber(meta.returnedNodes)}</strong> of{" "}
        {formatNumber(meta.totalNodes)} nodes,{" "}
        <strong data-testid="graph-meta-edges">{formatNumber(meta.returnedEdges)}</strong> of{" "}
        {formatNumber(meta.totalEdges)} relationships
        {ready && (counts.nodes > meta.returnedNodes || counts.edges > meta.returnedEdges) ? (
          <span className="muted" data-testid="graph-meta-added">
            {" "}
            · +{plural(Math.max(0, counts.nodes - meta.returnedNodes), "node")} and +
            {plural(Math.max(0, counts.edges - meta.returnedEdges), "relationship")} from expanding
          </span>
        ) : null}
      </p>
      <div className="graph-layout">
        <div className="graph-main">
          <GraphCanvas
            base={graph}
            state={drawing.state}
            selectedId={selectedId}
            engineRef={engineRef}
            onSelect={setSelectedId}
            onHover={setHoverId}
            onActivate={(id) => {
              setSelectedId(id);
              expand(id, 1);
            }}
            onCounts={setCounts}
            label={canvasLabel}
            describedBy={helpId}
          >
            <div className="zoom-controls" role="group" aria-label="Zoom" data-graph-obstacle>
              {ZOOM_CONTROLS.map(([text, label, testId, act]) => (
                <button
                  key={testId}
                  type="button"
                  onClick={() => engineRef.current && act(engineRef.current)}
                  aria-label={label}
                  data-testid={testId}
                >
                  {text}
                </button>
              ))}
            </div>
            {drawing.state === "loading" ? (
              <p className="notice graph-toast" role="status" data-testid="graph-drawing-loading">
                Loading the drawing…
                <noscript> It is drawn in the browser with JavaScript, which is off here.</noscript>
              </p>
            ) : null}
            {drawing.state === "failed" ? (
              <div className="notice error graph-toast" role="alert" data-testid="graph-drawing-error">
                <span>{drawing.error}</span>
                <button
                  type="button"
                  className="button"
                  onClick={drawing.retry}
                  data-testid="graph-drawing-retry"
                >
                  Try again
                </button>
              </div>
            ) : null}
            {notice ? (
              <p
                className={`notice ${notice.tone} graph-toast`}
                data-graph-obstacle
                role={notice.tone === "error" ? "alert" : "status"}
                data-testid="graph-notice"
              >
                <span>{notice.text}</span>
                <button type="button" className="close" aria-label="Dismiss" onClick={() => setNotice(null)}>
                  ×
                </button>
              </p>
            ) : null}
            {hovered ? (
              <div className="hover-card" aria-hidden data-graph-obstacle>
                <strong>{hovered.caption}</strong> <span className="muted">{hovered.label}</span>
              </div>
            ) : null}
            <p id={helpId} className="visually-hidden">
              Drag to pan, use the mouse wheel to zoom, click a node to inspect it and double-click to expand
              it. With the keyboard: plus and minus zoom, arrow keys pan, 0 fits the drawing. Use Find node,
              or the drawing as a list below it, to select a node without a pointer.
            </p>
          </GraphCanvas>
          <ul className="legend graph-legend" aria-label="Layer colours" data-testid="graph-legend">
            {ALL_LAYERS.map((l) => (
              <li key={l} className={perLayer[l] ? "" : "muted"}>
                <span className={`dot dot-${l}`} aria-hidden />
                {l.toUpperCase()} {layerTitle(l)} <span className="muted">({formatNumber(perLayer[l])})</span>
              </li>
            ))}
          </ul>
          {overview ? <LayerExpansions persona={persona} drawn={perLayer} /> : null}
          <GraphNodeList nodes={allNodes} selectedId={selectedId} onSelect={openFromList} />
        </div>
        <GraphInspector
          selectedId={selectedId}
          data={nodeFetcher.data}
          loading={nodeFetcher.state !== "idle"}
          inDrawing={!!selectedId && byId.has(selectedId)}
          expanding={expandFetcher.state !== "idle"}
          onSelect={select}
          onExpand={expand}
          titleId={inspectorTitleId}
        />
      </div>
    </div>
  );
}

/** the overview's next step: each layer expanded into its own drawing, or all layers at once */
function LayerExpansions({ persona, drawn }: { persona: string; drawn: Record<Layer, number> }) {
  const to = (layer: string) => {
    const q = new URLSearchParams({ layer });
    if (persona) q.set("persona", persona);
    return `/graph?${q}`;
  };
  return (
    <nav className="graph-expand-layers" aria-label="Expand a layer" data-testid="graph-expand-layers">
      <span className="muted">Expand:</span>
      <ul>
        {ALL_LAYERS.filter((l) => drawn[l] > 0).map((l) => (
          <li key={l}>
            <AppLink to={to(l)} className="button" data-testid="graph-expand-layer" data-layer={l}>
              <span className={`dot dot-${l}`} aria-hidden />
              {l.toUpperCase()} {layerTitle(l)}
            </AppLink>
          </li>
        ))}
        <li>
          <AppLink to={to("all")} className="button" data-testid="graph-expand-layer" data-layer="all">
            All layers, up to {formatNumber(LIMIT_OPTIONS[LIMIT_OPTIONS.length - 1])} nodes
          </AppLink>
        </li>
      </ul>
    </nav>
  );
}
