/**
 * Parts of a patient's own answers (the record as FHIR, their observations, a pairing's rows, their
 * devices), kept per patient for one version of everything they derive from (issue 13): the graph's
 * `version()`, the change feed's topics of the app's tables they read (store.ts). The key starts with
 * the patient id the server gave the caller (the session's, or the paired device account's), so one
 * patient's parts are never another's; any write moves a version, so the next read builds afresh. The
 * version is read before the build: a write that lands during a build leaves the parts under the older
 * version, rebuilt by the next read. Concurrent first readers share one build; a build that fails (404)
 * is not kept. At most `max` keys are kept, the one read longest ago dropped first. Parts are shared
 * between requests: strings, buffers, or objects nobody changes.
 */
export function createPatientKept<T>(max = 256) {
  const kept = new Map<string, { version: string; value: Promise<T> }>();
  return function get(key: string, version: string, build: () => Promise<T>): Promise<T> {
    const hit = kept.get(key);
    kept.delete(key);
    if (hit?.version === version) {
      kept.set(key, hit); // now the most recently read
      return hit.value;
    }
    const entry = { version, value: build() };
    kept.set(key, entry);
    if (kept.size > max) kept.delete(kept.keys().next().value!);
    entry.value.catch(() => {
      if (kept.get(key) === entry) kept.delete(key);
    });
    return entry.value;
  };
}
