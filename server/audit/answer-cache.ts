import { EncodedBody } from "../http/node-adapter";

/**
 * Answers of the audit routes, kept encoded (gzip made once) for one version of the audit log
 * (`AuditLog.version()`: every append and purge, here, on the batch thread or on another instance,
 * moves it). The caller reads the version *before* it builds, so whatever a build read is at least as
 * new as that version; the first read of a newer version empties the map. Identical builds in flight
 * share one promise (fifty first callers build once). An answer may also hold only until a time
 * (`until`, ms): one that depends on the clock (retention's `due` counts).
 *
 * Bounded: at most `maxEntries` answers and `maxBytes` of them (the plain bytes; the gzip of each, made
 * on first demand, adds a fraction of that); the least recently used go first, and an answer larger
 * than the budget is answered but not kept. Keys must name everything else the answer
 * depends on (the caller's class, the filters).
 */
export interface Answer {
  value: unknown;
  /** the answer holds until then (ms since the epoch); for ever when absent */
  until?: number;
}

export function createAnswerCache(limits: { maxEntries: number; maxBytes: number }) {
  let version = -1;
  let bytes = 0;
  const kept = new Map<string, { body: EncodedBody; from: number; until: number }>();
  const building = new Map<string, Promise<{ body: EncodedBody; from: number; until: number }>>();

  const drop = (key: string) => {
    const k = kept.get(key);
    if (k) bytes -= k.body.byteLength;
    kept.delete(key);
  };

  return {
    /** the answer of `key` at `atVersion` (read before calling) and time `now` */
    async get(
      atVersion: number,
      key: string,
      now: number,
      build: () => Promise<Answer>,
    ): Promise<EncodedBody> {
      if (atVersion > version) {
        kept.clear();
        building.clear();
        bytes = 0;
        version = atVersion;
      }
      // a caller that read an older version than the map's is answered afresh (never happens on the
      // embedded store, where versions are read in order; possible across PostgreSQL round trips)
      if (atVersion < version) return (await encode(build, now)).body;
      const hit = kept.get(key);
      if (hit && now >= hit.from && now <= hit.until) {
        // most recently used last
        kept.delete(key);
        kept.set(key, hit);
        return hit.body;
      }
      let pending = building.get(key);
      if (!pending) {
        const p = encode(build, now);
        pending = p;
        building.set(key, p);
        void p
          .then((made) => {
            if (version !== atVersion || made.body.byteLength > limits.maxBytes) return;
            drop(key);
            kept.set(key, made);
            bytes += made.body.byteLength;
            for (const k of kept.keys()) {
              if (kept.size <= limits.maxEntries && bytes <= limits.maxBytes) break;
              drop(k);
            }
          })
          .catch(() => {})
          .finally(() => {
            if (building.get(key) === p) building.delete(key);
          });
      }
      const made = await pending;
      // a shared build made for an earlier moment of a clock-bound answer: build for this one
      if (now < made.from || now > made.until) return (await encode(build, now)).body;
      return made.body;
    },
    /** what is kept (for tests) */
    get size() {
      return { entries: kept.size, bytes };
    },
  };
}

async function encode(build: () => Promise<Answer>, now: number) {
  const { value, until } = await build();
  return { body: EncodedBody.json(value), from: now, until: until ?? Infinity };
}
