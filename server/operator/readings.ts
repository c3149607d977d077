import { json } from "../http/errors";

/**
 * Answers made from the last background reading (component probes, the discovery check), as
 * GET /api/health answers its probes (decision 0010): the answer says how old the reading is
 * (`Age` in seconds, RFC 9111, and `X-Probe-Age-Ms`).
 */

export interface Reading<T> {
  value: T;
  /** milliseconds since the reading was made */
  ageMs: number;
}

export function readingResponse(reading: Reading<unknown>): Response {
  return json(reading.value, 200, {
    age: String(Math.floor(reading.ageMs / 1000)),
    "x-probe-age-ms": String(Math.round(reading.ageMs)),
  });
}

/** how often readings are taken while they are asked for, and when they stop (nobody asking) */
export const READING_INTERVAL_MS = 2000;
export const READING_IDLE_STOP_MS = 15_000;
