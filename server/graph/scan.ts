import type { GraphNode, Properties } from "./model";
import type { GraphStore } from "./store";

/** Reads every node of a label through the port, in bounded keyset pages (each after the last node of the one before, in the stores' insertion order). */
export async function* scanNodes(
  graph: GraphStore,
  label: string,
  where?: Properties,
  pageSize = 20_000,
): AsyncGenerator<GraphNode[]> {
  for (let after: string | undefined; ;) {
    const page = await graph.findNodes({
      label,
      where,
      limit: pageSize,
      ...(after === undefined ? {} : { after }),
    });
    if (page.length) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.id;
  }
}

export async function findAll(graph: GraphStore, label: string, where?: Properties): Promise<GraphNode[]> {
  const out: GraphNode[] = [];
  for await (const page of scanNodes(graph, label, where)) out.push(...page);
  return out;
}

/**
 * What a set of labels looks like, cheaply: per label, the node count and the id of the newest
 * node. Two index-backed queries per label, whatever the graph's size.
 */
export async function labelFingerprint(graph: GraphStore, labels: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    labels.map(async (label) => {
      const n = await graph.countWhere(label);
      const last = n ? (await graph.findNodes({ label, limit: 1, offset: n - 1 }))[0]?.id : "";
      return `${label}:${n}:${last ?? ""}`;
    }),
  );
  return parts.join("|");
}

/**
 * A value computed from a few labels, kept until they change: when the graph version moves,
 * the labels' fingerprint (counts and newest ids) is compared first, and the value is kept when
 * they did not change — a consent or a catalogue entry written elsewhere does not cost a rescan of
 * the OMOP layer. This assumes the rows of those labels are added and removed, never edited in
 * place (true of every writer today: the seeder, imports and the patient app's record sync).
 */
export function labelScopedCache<T>(graph: GraphStore, labels: readonly string[], build: () => Promise<T>) {
  let entry: { version: number; fingerprint: string; value: Promise<T>; builtMs: number } | undefined;
  let pending: Promise<{ version: number; fingerprint: string; value: T; builtMs: number }> | undefined;
  return {
    async get(): Promise<{ value: T; hit: boolean; version: number; builtMs: number }> {
      const version = graph.version();
      if (entry && entry.version === version)
        return { value: await entry.value, hit: true, version, builtMs: entry.builtMs };
      if (!pending) {
        pending = (async () => {
          const fingerprint = await labelFingerprint(graph, labels);
          if (entry && entry.fingerprint === fingerprint) {
            entry = { ...entry, version };
            return { version, fingerprint, value: await entry.value, builtMs: entry.builtMs };
          }
          const started = performance.now();
          const value = await build();
          const builtMs = Math.round(performance.now() - started);
          // a write during the build leaves the entry under the version read before it
          entry = { version, fingerprint, value: Promise.resolve(value), builtMs };
          return { version, fingerprint, value, builtMs: -1 };
        })().finally(() => {
          pending = undefined;
        });
      }
      const r = await pending;
      return {
        value: r.value,
        hit: r.builtMs !== -1,
        version: r.version,
        builtMs: r.builtMs === -1 ? (entry?.builtMs ?? 0) : r.builtMs,
      };
    },
  };
}
