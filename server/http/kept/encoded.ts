import { EncodedBody } from "../node-adapter";
import { keptValues } from "./kept";

const bodies = new WeakMap<object, EncodedBody>();

/**
 * The JSON of a kept value (one made by `deepFrozen`: shared, never changed), encoded once and its gzip
 * made once, for as long as the value lives; undefined for any other value, which the edge encodes
 * per request (server/http/errors.ts `json`). So a service that keeps its answer as an object costs
 * the edge a lookup, not a JSON.stringify and a compression per request.
 */
export function encodedOnce(value: unknown): EncodedBody | undefined {
  if (typeof value !== "object" || value === null || !keptValues.has(value)) return undefined;
  let body = bodies.get(value);
  if (!body) bodies.set(value, (body = EncodedBody.json(value)));
  return body;
}
