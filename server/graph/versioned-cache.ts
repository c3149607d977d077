import { EncodedBody } from "../http/node-adapter";
import type { GraphStore } from "./store";

/**
 * Values that depend only on the graph's content, kept per graph version: any write to the store bumps
 * its version and empties the map at the next read. Identical builds in flight share one promise (fifty
 * first callers of a new version build once); a value built while the version changed, or a build that
 * failed, is not kept. Keys must name everything else the value depends on. Values are shared between
 * callers: hand out only what nobody changes (frozen objects, encoded bodies).
 */
export function createVersionedMap<T>(store: Pick<GraphStore, "version">, maxEntries = 256) {
  const cache = new Map<string, T>();
  const building = new Map<string, Promise<T>>();
  let cacheVersion = store.version();

  return function get(key: string, build: () => Promise<T>): Promise<T> {
    if (cacheVersion !== store.version()) {
      cache.clear();
      building.clear();
      cacheVersion = store.version();
    }
    if (cache.has(key)) return Promise.resolve(cache.get(key) as T);
    const pending = building.get(key);
    if (pending) return pending;
    const version = cacheVersion;
    const promise = build()
      .then((value) => {
        if (version === store.version()) {
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
          cache.set(key, value);
        }
        return value;
      })
      .finally(() => {
        if (building.get(key) === promise) building.delete(key);
      });
    building.set(key, promise);
    return promise;
  };
}

/**
 * Serialised answers that depend only on the graph's content, kept per graph version (as
 * createVersionedMap): the value a build gives is encoded once as JSON.
 */
export function createVersionedCache(store: Pick<GraphStore, "version">, maxEntries = 256) {
  const map = createVersionedMap<EncodedBody>(store, maxEntries);
  return function cached(key: string, build: () => Promise<unknown>): Promise<EncodedBody> {
    return map(key, async () => EncodedBody.json(await build()));
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
