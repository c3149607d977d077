/**
 * A cache key for a read and its arguments: the kind, then each part as `length:text` (a string), `-`
 * (undefined) or JSON (anything else, e.g. a query), so no two different reads share a key whatever
 * their ids hold. Built as text without an array encoded per call: it is made on hot paths (the task
 * list reads two lists per participant context per request; the analytics scope per request).
 */
export function cacheKey(kind: string, ...parts: unknown[]): string {
  let k = kind;
  for (const p of parts)
    k += typeof p === "string" ? `|${p.length}:${p}` : p === undefined ? "|-" : `|j${JSON.stringify(p)}`;
  return k;
}
