import { EncodedBody } from "./node-adapter";

/**
 * Answers of read routes kept between requests (issue 13, decision 0042): built once per version of
 * their inputs and shared by every caller of the same key, so a read costs a lookup and the writing of a
 * kept text instead of the store's queries, the graph's look-ups and a JSON.stringify. Used by the access
 * body and compliance (their records' version and the graph's), the operator's directory and
 * demonstration catalogues (the directory's change-feed version and the graph's), the ODRL policy list
 * (the policy registry's version). The trust center and the ODRL scope keep their own text with
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

/**
 * Where a body made per request is kept for the rest of its millisecond: the last one made, with its
 * millisecond and `tag` (whatever else of it varies per request, e.g. a version).
 */
export interface MillisecondSlot {
  last?: { at: number; tag: string; body: EncodedBody };
}

/**
 * The body at `now`, made by `make` (given the time as ISO text) once per millisecond and tag: the
 * requests of one millisecond share it, their bytes being the same (a time field is written to the
 * millisecond). For answers kept but for their time: bodyAt, the credential listing, the federated
 * answer, the analytics dashboard.
 */
export function bodyOfMillisecond(
  slot: MillisecondSlot,
  now: Date,
  tag: string,
  make: (iso: string) => EncodedBody,
): EncodedBody {
  const at = now.getTime();
  const last = slot.last;
  if (last && last.at === at && last.tag === tag) return last.body;
  const body = make(now.toISOString());
  slot.last = { at, tag, body };
  return body;
}

/** an answer's JSON text around one top-level time field (`generatedAt`, `computedAt`): the time of each read */
export interface TimedText extends MillisecondSlot {
  head: string;
  tail: string;
  /** head and tail as UTF-8, made at the first bodyAt */
  bytes?: { head: Buffer; tail: Buffer };
}

/**
 * An answer encoded once with its time field left open (the property keeps its place in the text): the
 * text of the answer at another time is `head + "<time>" + tail` (bodyAt). While it is encoded the field
 * holds a value no answer holds (NUL is never in a time), found after the field's own name.
 */
export function timedText<F extends string = "generatedAt">(
  answer: { [K in NoInfer<F>]: string },
  field: F = "generatedAt" as F,
): TimedText {
  const value = `\u0000${field}\u0000`;
  const open = JSON.stringify(value);
  const name = `${JSON.stringify(field)}:`;
  const text = JSON.stringify({ ...answer, [field]: value });
  const at = text.indexOf(name + open) + name.length;
  return { head: text.slice(0, at), tail: text.slice(at + open.length) };
}

/**
 * The answer at `now` as bytes to send, byte for byte JSON.stringify of the answer built with its time
 * field = now: the kept head and tail written around the time (chunks, not joined: EncodedBody), instead
 * of a string encoded as UTF-8 on every request (for large answers, most of their cost). Not compressed:
 * it is made per millisecond (bodyOfMillisecond).
 */
export function bodyAt(t: TimedText, now: Date): EncodedBody {
  return bodyOfMillisecond(t, now, "", (iso) => {
    t.bytes ??= { head: Buffer.from(t.head), tail: Buffer.from(t.tail) };
    return new EncodedBody([t.bytes.head, Buffer.from(`"${iso}"`), t.bytes.tail], { compress: false });
  });
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
