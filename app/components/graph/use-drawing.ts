import { useFetcher } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { DrawingData } from "../../routes/graph.drawing/route";
import type { VGraph } from "./types";
import { decodeGraph } from "./wire";

/** What the explorer draws, as its fetcher stands (decision 0027). */
export type DrawingState =
  | { state: "loading" }
  | { state: "failed"; error: string; retry: () => void }
  | { state: "ready"; graph: VGraph; focus: string | null; focusError: string | null };

/** the drawing's resource route for the page's query string (`?layer=…`, or "") */
export const drawingPath = (search: string) => `/graph/drawing${search}`;

/**
 * Loads the drawing of the page's query after hydration, and again whenever the query changes (the
 * scope form's GET navigation). Until the answer for the current query arrives, the state is
 * "loading": never the previous query's drawing.
 */
export function useDrawing(search: string): DrawingState {
  const fetcher = useFetcher<DrawingData>();
  const load = fetcher.load;
  const path = drawingPath(search);
  const [asked, setAsked] = useState<string | null>(null);
  useEffect(() => {
    setAsked(path);
    load(path);
  }, [path, load]);
  const retry = useCallback(() => load(path), [path, load]);
  const answer = asked === path && fetcher.state === "idle" ? fetcher.data : undefined;
  return useMemo((): DrawingState => {
    if (!answer) return { state: "loading" };
    if ("error" in answer) return { state: "failed", error: answer.error, retry };
    return {
      state: "ready",
      graph: decodeGraph(answer.graph),
      focus: answer.focus,
      focusError: answer.focusError,
    };
  }, [answer, retry]);
}
