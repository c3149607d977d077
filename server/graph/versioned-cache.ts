import { EncodedBody } from "../http/node-adapter";
import type { GraphStore } from "./store";

/**
 * Serialised answers that depend only on the graph's content, kept per graph version: any write
 * to the store bumps its version and empties the cache at the next read. Identical builds in flight
 * share one promise (fifty first callers of a new version build once). Keys must name everything
 * else the answer depends on (the caller's visibility class, query parameters).
 */
export function createVersionedCache(store: Pick<GraphStore, "version">, maxEntries = 256) {
  const cache = new Map<string, EncodedBody>();
  const building = new Map<string, Promise<EncodedBody>>();
  let cacheVersion = store.version();

  return function cached(key: string, build: () => Promise<unknown>): Promise<EncodedBody> {
    if (cacheVersion !== store.version()) {
      cache.clear();
      building.clear();
      cacheVersion = store.version();
    }
    const hit = cache.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = building.get(key);
    if (pending) return pending;
    const version = cacheVersion;
    const promise = build()
      .then((value) => {
        const body = new EncodedBody(Buffer.from(JSON.stringify(value)));
        if (version === store.version()) {
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
          cache.set(key, body);
        }
        return body;
      })
      .finally(() => {
        if (building.get(key) === promise) building.delete(key);
      });
    building.set(key, promise);
    return promise;
  };
}

/**
 * One value derived from the whole graph (a list, a set of counts), built once per graph version and
 * shared: callers of the same version get the same promise, so concurrent first callers build once. A
 * build that fails is not kept; the next call builds again.
 */
export function createVersionedValue<T>(
  store: Pick<GraphStore, "version">,
  build: () => Promise<T>,
): () => Promise<T> {
  let kept: { version: number; value: Promise<T> } | null = null;
  return () => {
    const version = store.version();
    if (kept?.version === version) return kept.value;
    const entry = { version, value: build() };
    kept = entry;
    entry.value.catch(() => {
      if (kept === entry) kept = null;
    });
    return entry.value;
  };
}
