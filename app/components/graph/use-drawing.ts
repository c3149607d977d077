import { useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { DrawingData } from "../../routes/graph.drawing/route";
import { pick } from "../../lib/pick";
import type { VGraph } from "./types";
import { decodeGraph } from "./wire";

/** What the explorer draws, as its fetcher stands (decision 0027). */
export type DrawingState =
  | { state: "loading" }
  | { state: "failed"; error: string; retry: () => void }
  | { state: "ready"; graph: VGraph; focus: string | null; focusError: string | null };

const DRAWING_ROUTE = "routes/graph.drawing";
/** how long the fetcher waits for the route's discovery before it loads anyway (and discovers it itself) */
const DISCOVERY_WAIT_MS = 10_000;

/**
 * Whether the page's route manifest holds the drawing's route (decision 0077). With lazy route
 * discovery the page starts without it; the explorer renders a hidden form whose action is the drawing's
 * route, so that Remix's discovery of rendered links and forms, which no navigation aborts, patches it in.
 */
function drawingRouteKnown(): boolean {
  const manifest = (window as { __remixManifest?: { routes: Record<string, unknown> } }).__remixManifest;
  return !manifest || DRAWING_ROUTE in manifest.routes;
}

/**
 * Loads the drawing of the page's query after hydration, and again whenever the query changes (the
 * scope form's GET navigation). Until the answer for the current query arrives, the state is
 * "loading": never the previous query's drawing. The fetcher loads only once the drawing's route is
 * known to the page: a navigation would revalidate it against routes that do not hold it yet (decision
 * 0077).
 */
export function useDrawing(search: string): DrawingState {
  const fetcher = useFetcher<DrawingData>();
  const load = fetcher.load;
  // the drawing's resource route for the page's query string (`?layer=…`, or "")
  const path = `/graph/drawing${search}`;
  const [asked, setAsked] = useState<string | null>(null);
  const [known, setKnown] = useState(false);
  useEffect(() => {
    if (known) return;
    const since = Date.now();
    const check = () => {
      if (!drawingRouteKnown() && Date.now() - since < DISCOVERY_WAIT_MS) return;
      clearInterval(timer);
      setKnown(true);
    };
    const timer = setInterval(check, 50);
    check();
    return () => clearInterval(timer);
  }, [known]);
  useEffect(() => {
    if (!known) return;
    setAsked(path);
    load(path);
  }, [path, load, known]);
  const retry = useCallback(() => load(path), [path, load]);
  const answer = asked === path && fetcher.state === "idle" ? fetcher.data : undefined;
  return useMemo((): DrawingState => {
    if (!answer) return { state: "loading" };
    if ("error" in answer) return { state: "failed", error: answer.error, retry };
    return { state: "ready", graph: decodeGraph(answer.graph), ...pick(answer, "focus focusError") };
  }, [answer, retry]);
}
