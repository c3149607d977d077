import { EncodedBody } from "../http/node-adapter";

/**
 * Answers encoded once per set of inputs, for lists the hub builds from upstream answers. The read
 * cache (read-cache.ts) hands out the very same frozen arrays while they are valid (a write through
 * this server, the embedded dataspace's change counter or the time to live ends that), so an answer
 * built only from such arrays, and from values compared by identity, is the same while they are.
 *
 * `root` is the first input (an upstream list as the read cache handed it out, e.g. the participant
 * contexts: null when its lookup failed), `key` names what of the caller or the query the answer
 * depends on (its scope, a participant id; "" when nothing), `parts` every other input (arrays,
 * null for a failed lookup, or values compared by identity). An answer is kept only when `root` and
 * every array among `parts` are frozen: anything else is one caller's own and is built each time.
 */
export function createEncodedByInputs(maxKeysPerRoot = 100) {
  const kept = new WeakMap<object, Map<string, { parts: readonly unknown[]; body: EncodedBody }>>();
  const shared = (v: unknown) => !Array.isArray(v) || Object.isFrozen(v);

  return function encoded(
    root: readonly unknown[] | null,
    key: string,
    parts: readonly unknown[],
    build: () => unknown,
  ): EncodedBody {
    const byKey = root ? kept.get(root) : undefined;
    const hit = byKey?.get(key);
    if (hit && hit.parts.length === parts.length && hit.parts.every((p, i) => p === parts[i]))
      return hit.body;
    const body = EncodedBody.json(build());
    if (root && Object.isFrozen(root) && parts.every(shared)) {
      let map = byKey;
      if (!map) kept.set(root, (map = new Map()));
      if (map.size >= maxKeysPerRoot) map.clear();
      map.set(key, { parts, body });
    }
    return body;
  };
}
