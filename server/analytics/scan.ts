import type { GraphNode, Properties } from "../graph/model";
import type { GraphStore } from "../graph/store";

/** Reads every node of a label through the port, in bounded pages (stable order: the stores sort by insertion). */
export async function* scanNodes(graph: GraphStore, label: string, where?: Properties, pageSize = 20_000): AsyncGenerator<GraphNode[]> {
  for (let offset = 0; ; offset += pageSize) {
    const page = await graph.findNodes({ label, where, limit: pageSize, offset });
    if (page.length) yield page;
    if (page.length < pageSize) return;
  }
}

export async function findAll(graph: GraphStore, label: string, where?: Properties): Promise<GraphNode[]> {
  const out: GraphNode[] = [];
  for await (const page of scanNodes(graph, label, where)) out.push(...page);
  return out;
}

export const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * A value computed from the graph and kept until the graph changes (`graph.version()` moves on
 * every write). Concurrent callers share one computation; a result computed while a write
 * happened is kept under the version read before it started, so the next call recomputes.
 */
export function versionedCache<T>(graph: GraphStore, build: () => Promise<T>) {
  let entry: { version: number; value: Promise<T>; builtMs?: number } | undefined;
  return {
    async get(): Promise<{ value: T; hit: boolean; version: number; builtMs: number }> {
      const version = graph.version();
      if (entry && entry.version === version) {
        const value = await entry.value;
        return { value, hit: true, version, builtMs: entry.builtMs ?? 0 };
      }
      const started = performance.now();
      const mine: { version: number; value: Promise<T>; builtMs?: number } = { version, value: build() };
      entry = mine;
      try {
        const value = await mine.value;
        mine.builtMs = Math.round(performance.now() - started);
        return { value, hit: false, version, builtMs: mine.builtMs };
      } catch (e) {
        if (entry === mine) entry = undefined;
        throw e;
      }
    },
    clear() {
      entry = undefined;
    },
  };
}
