/**
 * A cache key for a read and its arguments: the kind, then each part as `length:text` (a string), `-`
 * (undefined) or JSON (anything else, e.g. a query), so no two different reads share a key whatever
 * their ids hold. Built as text without an array encoded per call: it is made on hot paths (the task
 * list reads two lists per participant context per request; the analytics scope per request).
 */
export function cacheKey(kind: string, ...parts: unknown[]): string {
  let k = kind;
  for (const p of parts)
    k += typeof p === "string" ? `|${p.length}:${p}` : p === undefined ? "|-" : `|j${jsonOf(p)}`;
  return k;
}

const frozenJson = new WeakMap<object, string>();

/**
 * The JSON of a part; a frozen object's once per object. A frozen part must be frozen all the way down
 * (`deepFrozen`): its JSON is taken never to change. Such parts are the request objects that a caller
 * keeps for reuse (the provider catalogue's, server/dataspace/negotiations.ts).
 */
function jsonOf(p: unknown): string {
  if (typeof p !== "object" || p === null || !Object.isFrozen(p)) return JSON.stringify(p);
  let json = frozenJson.get(p);
  if (json === undefined) frozenJson.set(p, (json = JSON.stringify(p)));
  return json;
}

/** `value` frozen with every object and array in it: what cacheKey takes as never changing */
export function deepFrozen<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFrozen(v);
    Object.freeze(value);
  }
  return value;
}
