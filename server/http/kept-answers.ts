import { EncodedBody } from "./node-adapter";

/**
 * Answers of read routes kept between requests (issue 13, decision 0042): built once per version of
 * their inputs and shared by every caller of the same key, so a read costs a lookup and the writing of a
 * kept text instead of the store's queries, the graph's look-ups and a JSON.stringify. Used by the access
 * body and compliance (their records' version and the graph's), the operator's directory and
 * demonstration catalogues (the directory's change-feed version and the graph's), the ODRL policy list
 * (the policy registry's version). The trust center and the ODRL scope keep their answer with
 * `timedText`; one negotiation, one transfer and a provider's catalogue use `createEncodedOnce`.
 *
 * `version` names the inputs' generation (e.g. the records' version as `ensureReady()` leaves it, and the
 * graph's version where the answer reads the graph): a new one drops everything kept for the one
 * before. `key` names everything else the answer depends on (the Berlin day, the caller's class, the
 * request's parameters). At most `max` keys are kept per generation, the oldest dropped first.
 * Concurrent first callers share one build; a build that fails is not kept. Values are shared: hand
 * out only what nobody changes (strings, encoded bodies).
 */
export function createKept<T>(max: number) {
  let generation: string | undefined;
  const kept = new Map<string, Promise<T>>();
  return function get(version: string, key: string, build: () => Promise<T>): Promise<T> {
    if (version !== generation) {
      kept.clear();
      generation = version;
    }
    let value = kept.get(key);
    if (!value) {
      const built = build();
      if (kept.size >= max) kept.delete(kept.keys().next().value as string);
      kept.set(key, built);
      built.catch(() => {
        if (kept.get(key) === built) kept.delete(key);
      });
      value = built;
    }
    return value;
  };
}

/** an answer kept but for one top-level time field (`generatedAt`, `computedAt`), set at each read */
export interface TimedText {
  answer: Readonly<Record<string, unknown>>;
  field: string;
}

/** keeps a copy of `answer` (as its JSON reads) for bodyAt, its time field `field` set at each read */
export function timedText<F extends string = "generatedAt">(
  answer: { [K in NoInfer<F>]: string },
  field: F = "generatedAt" as F,
): TimedText {
  return { answer: JSON.parse(JSON.stringify(answer)) as Record<string, unknown>, field };
}

/** the kept answer at `now`: its JSON with the time field (in its place) set to `now` */
export function bodyAt(t: TimedText, now: Date): EncodedBody {
  return EncodedBody.json({ ...t.answer, [t.field]: now.toISOString() }, { compress: false });
}

const identities = new WeakMap<object, number>();
let lastIdentity = 0;

/**
 * A number per object, the same for as long as the object lives: for a `version` made of inputs that
 * are compared by identity (an upstream list as the read cache hands it out, frozen and shared while it
 * is valid; a new list is a new version).
 */
export function identityOf(value: object): number {
  let id = identities.get(value);
  if (id === undefined) identities.set(value, (id = ++lastIdentity));
  return id;
}

/**
 * The JSON of values derived from shared objects, encoded once per object: `encoded(source)` is the
 * JSON of `view(source)`, made at the first call for that object and answered again while the object
 * lives (a reading of background probes, an upstream answer the read cache hands out to every caller
 * while it is valid, or to every caller of one call in flight). Sources must not change after their
 * first use: the read cache's answers and the probes' readings are shared and nobody changes them.
 */
export function createEncodedOnce<S extends object>(view: (source: S) => unknown = (s) => s) {
  const bodies = new WeakMap<S, EncodedBody>();
  return function encoded(source: S): EncodedBody {
    let body = bodies.get(source);
    if (!body) {
      body = EncodedBody.json(view(source));
      bodies.set(source, body);
    }
    return body;
  };
}
