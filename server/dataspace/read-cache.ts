import { deepFrozen } from "../http/kept/kept";
import { callDeadline, isNotFound, transportError, type UpstreamName } from "./upstream-http";

/**
 * A short cache of upstream reads with coalescing of identical in-flight calls.
 *
 * - Identical reads in flight share one upstream call; the call runs with its own time-out, and each
 *   caller still gives up at its own deadline (with the usual "did not answer within the time-out").
 * - A successful answer is kept for `ttlMs` (0: coalescing only), and so is a 404: the upstream's answer
 *   that the thing is not there (a demonstration record's id asked of the connector, each time, before
 *   its fallback), invalidated like any other answer. Failures (time-outs, 5xx, refused connections) are
 *   never kept.
 * - `invalidate()` (called after every write through this server) and a change of `version()` (the
 *   embedded dataspace's change counter) drop every entry at once, and a read that was in flight
 *   before the change neither fills the cache nor is joined by reads that start after it: a write
 *   then a read returns the write.
 * - Answers are shared between callers: the arrays are frozen, callers copy before they change them.
 */

/** The embedded dataspace tells every change (its change counter): its answers may live longer. */
export const EMBEDDED_READ_CACHE_MS = 10_000;

const MAX_ENTRIES = 1000;

export interface ReadCacheOptions {
  /** the upstream named in a caller's time-out error, unless a read names its own */
  name: UpstreamName;
  /** how long a successful answer is reused; 0 keeps nothing (identical in-flight calls still coalesce) */
  ttlMs: number;
  timeoutMs: number;
  /** an upstream change counter: a new value invalidates everything */
  version?: () => number;
  now?: () => number;
}

export type ReadCache = ReturnType<typeof createReadCache>;

interface Entry {
  generation: number;
  at: number;
  value: unknown;
  /** the upstream's 404, thrown again to every reader while it is kept */
  notFound?: unknown;
}

export function createReadCache(options: ReadCacheOptions) {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, { generation: number; promise: Promise<unknown> }>();
  const stats = { hits: 0, misses: 0, coalesced: 0, invalidations: 0 };
  // the generation counts the changes seen: an invalidate() here or a new upstream change counter
  // (compared as numbers, no key text per read)
  let generationNo = 0;
  let seenUpstream = options.version?.() ?? 0;

  function generation(): number {
    const upstream = options.version?.() ?? 0;
    if (upstream !== seenUpstream) {
      seenUpstream = upstream;
      changed();
    }
    return generationNo;
  }

  function changed() {
    generationNo++;
    stats.invalidations++;
    entries.clear();
  }

  function untilDeadline<T>(
    promise: Promise<T>,
    signal: AbortSignal | undefined,
    upstream: UpstreamName,
  ): Promise<T> {
    if (!signal) return promise;
    if (signal.aborted) return Promise.reject(transportError(upstream, signal.reason, signal));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(transportError(upstream, signal.reason, signal));
      signal.addEventListener("abort", onAbort, { once: true });
      promise
        .then(resolve, (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))))
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  const fresh = (key: string): Entry | undefined => {
    const g = generation();
    const hit = entries.get(key);
    return hit && hit.generation === g && now() - hit.at <= options.ttlMs ? hit : undefined;
  };

  function read<T>(
    key: string,
    signal: AbortSignal | undefined,
    load: (signal: AbortSignal) => Promise<T>,
    upstream: UpstreamName,
    keep: boolean,
  ): Promise<T> {
    if (keep) {
      const hit = fresh(key);
      if (hit) {
        stats.hits++;
        return hit.notFound === undefined ? Promise.resolve(hit.value as T) : Promise.reject(hit.notFound);
      }
    } else generation();
    const g = generationNo;
    const running = inFlight.get(key);
    if (running && running.generation === g) {
      stats.coalesced++;
      return untilDeadline(running.promise as Promise<T>, signal, upstream);
    }
    stats.misses++;
    const keepEntry = (entry: Omit<Entry, "generation" | "at">) => {
      if (keep && options.ttlMs > 0 && generation() === g) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(key, { generation: g, at: now(), ...entry });
      }
    };
    // the shared call's own deadline, cleared when it settles (no timer left for the whole time-out)
    const deadline = callDeadline(options.timeoutMs);
    let loading: Promise<T>;
    try {
      loading = load(deadline.signal);
    } catch (e) {
      deadline.clear(); // a loader that throws at once: no call to bound
      throw e;
    }
    const promise = loading.then(
      (value) => {
        deadline.clear();
        // an answer handed out to every reader while it is kept is read only, all the way down: a kept
        // build over it (createKeptByInputs) stops its own freezing at this already frozen array
        if (Array.isArray(value) || (keep && typeof value === "object" && value !== null)) deepFrozen(value);
        keepEntry({ value });
        return value;
      },
      (e: unknown) => {
        deadline.clear();
        if (isNotFound(e)) keepEntry({ value: undefined, notFound: e });
        throw e;
      },
    );
    const flight = { generation: g, promise };
    inFlight.set(key, flight);
    const done = () => {
      if (inFlight.get(key) === flight) inFlight.delete(key);
    };
    promise.then(done, done);
    return untilDeadline(promise, signal, upstream);
  }

  type Load<T> = (signal: AbortSignal) => Promise<T>;
  return {
    read: <T>(key: string, signal: AbortSignal | undefined, load: Load<T>, upstream = options.name) =>
      read(key, signal, load, upstream, true),
    /**
     * Like `read`, for an answer that must be fresh on each request (e.g. a provider's catalogue with its
     * new offer ids): only identical calls in flight share one upstream call, and nothing is kept, unless
     * the cache follows each of the upstream's changes (`version`: the embedded dataspace), when it is
     * kept as `read` keeps it.
     */
    share: <T>(key: string, signal: AbortSignal | undefined, load: Load<T>, upstream = options.name) =>
      read(key, signal, load, upstream, options.version !== undefined),
    /**
     * The answer a read of `key` would get from the cache now, without a promise: for callers that
     * gather many cached reads per request (the task list); undefined when the read must run.
     */
    peek<T>(key: string): T | undefined {
      const hit = fresh(key);
      // a kept 404 is thrown by read(), not peeked
      if (!hit || hit.notFound !== undefined) return undefined;
      stats.hits++;
      return hit.value as T;
    },
    invalidate() {
      seenUpstream = options.version?.() ?? 0;
      changed();
      inFlight.clear();
    },
    stats: stats as Readonly<typeof stats>,
  };
}
