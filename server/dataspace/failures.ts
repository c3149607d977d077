import { ApiError, badGateway, describeError, notFound } from "../http/errors";
import { isNotFound, isUpstreamError } from "./upstream-http";

/** One line for a 502 `detail`: which upstream failed and how, never a stack trace. */
export const describeUpstream = (e: unknown): string => (isUpstreamError(e) ? e.message : describeError(e));

/** An upstream's failure to read one thing: the spec's 404 (`missing`) when it has none, else its 502. */
export const notFoundOr502 = (e: unknown, missing: string, failure: string) =>
  isNotFound(e) ? notFound(missing) : badGateway(failure, describeUpstream(e));

/** `read`'s answer, or the spec's 502 (`failure`) when the upstream failed */
export async function or502<T>(read: () => Promise<T>, failure: string): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw badGateway(failure, describeUpstream(e));
  }
}

/** The failure message of a transfer start (spec: `error` carries it), or undefined when there is none worth showing. */
export const failureMessage = (e: unknown) => (isUpstreamError(e) ? e.message : undefined);

/**
 * The connector's list as it came (the read cache hands out the same frozen array while it is valid),
 * or null when it failed and the demonstration records may stand in (`fallback`); a 502 when they may not.
 */
export async function liveOrNull<T>(
  read: () => Promise<T>,
  fallback: boolean,
  failure: string,
): Promise<T | null> {
  if (!fallback) return or502(read, failure);
  try {
    return await read();
  } catch {
    return null;
  }
}

/**
 * A connector's 4xx about the caller's request (issue 39), as the 4xx it is: the context named does not
 * exist (404), the record exists already (409), the value was refused as invalid (400). Undefined for
 * anything else, which stays the spec's 502: a client can tell "fix your request" from "retry later".
 * The texts are the hub's own, never the connector's body.
 */
export function callerMistake(
  e: unknown,
  texts: { notFound: string; conflict?: string; invalid: string },
): ApiError | undefined {
  if (!isUpstreamError(e) || e.failure !== "status" || e.upstream !== "connector") return undefined;
  switch (e.status) {
    case 404:
      return new ApiError(404, texts.notFound);
    case 409:
      return texts.conflict ? new ApiError(409, texts.conflict) : undefined;
    case 400:
    case 422:
      return new ApiError(400, texts.invalid);
    default:
      return undefined;
  }
}
