import { describeError, isApiError } from "../http/errors";
import { isUpstreamError } from "./upstream-http";

/** One line for a 502 `detail`: which upstream failed and how, never a stack trace. */
export function describeUpstream(e: unknown): string {
  if (isUpstreamError(e)) return e.message;
  if (isApiError(e)) return describeError(e);
  return describeError(e);
}

/** The failure message of a transfer start (spec: `error` carries it), or undefined when there is none worth showing. */
export function failureMessage(e: unknown): string | undefined {
  if (isUpstreamError(e)) return e.message;
  return undefined;
}
