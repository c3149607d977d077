import { LRUCache } from "lru-cache";
import { inputVersions, keyText } from "./key";

/**
 * What a kept answer depends on. `caller` is required, so that no key can leave the caller out: a
 * caller class's key (callers.ts `callerKey`), or `EVERYONE` for a value that is the same for every
 * caller. `versions` are the values of the version counters the answer reads (bumped by every write
 * to what they count: the graph's, the access body's records, the audit log's, the day): a write
 * moves one, so answers of the old version are never found again (and age out of the LRU). `args`
 * are everything else (the route's parameters and query).
 */
export interface KeptKey {
  caller: string;
  versions: readonly (string | number)[];
  args?: readonly unknown[];
}

/** the caller part of a key for a value that no caller changes (a count over the whole graph) */
export const EVERYONE = "*";

export interface KeptOptions<T> {
  /** at most this many answers, the one used longest ago dropped first */
  max: number;
  /** and at most this size in all (with `sizeOf`); an answer larger than that is answered, not kept */
  maxSize?: number;
  sizeOf?: (value: T) => number;
  /** how long an answer holds (ms), when it depends on the clock too; for ever when undefined */
  ttlOf?: (value: T) => number | undefined;
  /** the clock `ttlOf` counts on (tests); the wall clock when undefined */
  now?: () => number;
}

/**
 * The one way to keep answers (docs/performance.md): a bounded LRU (`lru-cache`) of answers by key.
 * Concurrent first callers of a key share one build; a build that fails is never kept (each caller
 * waiting on it gets the failure; the next call builds again). Values are shared between callers:
 * keep only what nobody changes (strings, encoded bodies, frozen objects, or objects handed out as
 * they are and never modified).
 */
export function createKept<T>(options: KeptOptions<T>) {
  const { maxSize, sizeOf, ttlOf, now = () => Date.now() } = options;
  const cache = new LRUCache<string, { value: T }, () => Promise<T>>({
    max: options.max,
    ...(maxSize && sizeOf
      ? { maxSize, maxEntrySize: maxSize, sizeCalculation: (b) => Math.max(1, sizeOf(b.value)) }
      : {}),
    // time to live on the wall clock, as the answers that depend on it read it (a day, a due date)
    ...(ttlOf ? { perf: { now }, ttlResolution: 0 } : {}),
    fetchMethod: async (_key, _stale, { options: set, context: build }) => {
      const value = await build();
      const ttl = ttlOf?.(value);
      if (ttl !== undefined) set.ttl = Math.max(1, ttl);
      return { value };
    },
  });
  const kept = async (key: KeptKey, build: () => Promise<T>): Promise<T> => {
    const text = keyText(key.caller, key.versions, ...(key.args ?? []));
    // a kept answer without the fetch's promise; a missing or still building one through the fetch,
    // which shares the build in flight
    const box = cache.get(text) ?? (await cache.fetch(text, { context: build }));
    return box!.value;
  };
  /** how many answers are kept, and their size in all (with `sizeOf`) */
  kept.size = () => cache.size;
  kept.bytes = () => cache.calculatedSize;
  /** drops the answer of `key`: for one whose inputs the key cannot name no longer hold (a validity period) */
  kept.forget = (key: KeptKey) => {
    cache.delete(keyText(key.caller, key.versions, ...(key.args ?? [])));
  };
  return kept;
}

/** the values made by deepFrozen: kept, shared and never changed (encoded.ts encodes them once) */
export const keptValues = new WeakSet<object>();

/**
 * `value` frozen with every object and array in it: a kept value shared by every caller. The walk stops
 * at an object already frozen (a part of an earlier kept value), so give it values not frozen by hand.
 */
export function deepFrozen<T>(value: T): T {
  freeze(value);
  if (typeof value === "object" && value !== null) keptValues.add(value);
  return value;
}
function freeze(value: unknown): void {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) freeze(v);
  }
}

/**
 * Values built from upstream answers as the read cache hands them out (the same frozen arrays while
 * they are valid): `kept(caller, inputs, build)` keeps `build()`'s value, frozen, by the identity of each
 * input (key.ts `inputVersions`) and the caller's class; when an input is a caller's own (an unfrozen
 * array) the value is built each time. For lists merged from the connector's answers and the bundle.
 */
export function createKeptByInputs<T>(max = 100) {
  const kept = createKept<T>({ max });
  return async (caller: string, inputs: readonly unknown[], build: () => T | Promise<T>): Promise<T> => {
    const versions = inputVersions(inputs);
    return versions ? kept({ caller, versions }, async () => deepFrozen(await build())) : build();
  };
}
