import { JSON_HEADERS } from "../http/errors";
import { createEncodedOnce } from "../http/kept-answers";
import { rawBodyResponse, type EncodedBody } from "../http/node-adapter";

/**
 * Answers made from the last background reading (component probes, the discovery check), as
 * GET /api/health answers its probes (decision 0010): the value is encoded once per reading, and
 * the answer says how old the reading is (`Age` in seconds, RFC 9111, and `X-Probe-Age-Ms`).
 */

export interface Kept<T> {
  value: T;
  /** `value` as JSON, encoded once per reading */
  body: EncodedBody;
  /** milliseconds since the reading was made */
  ageMs: number;
}

/** the JSON of a reading's value, encoded at its first use and shared by every later answer */
export const encodedOnce = createEncodedOnce<object>();

export function keptResponse(kept: Kept<unknown>): Response {
  return rawBodyResponse(kept.body, {
    status: 200,
    headers: {
      "content-type": JSON_HEADERS["Content-Type"],
      "cache-control": JSON_HEADERS["Cache-Control"],
      age: String(Math.floor(kept.ageMs / 1000)),
      "x-probe-age-ms": String(Math.round(kept.ageMs)),
    },
  });
}

/** how often readings are taken while they are asked for, and when they stop (nobody asking) */
export const READING_INTERVAL_MS = 2000;
export const READING_IDLE_STOP_MS = 15_000;
