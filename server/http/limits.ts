/** The largest request body the /api accepts (the Node adapter reads one byte more, so 413 can be told). */
export const MAX_BODY_BYTES = 1_000_000;
/** the error of a body over `limit` (the /api's and the pages' 413, body.ts and node-adapter.ts) */
export const bodyTooLarge = (limit = MAX_BODY_BYTES) => `Request body too large (limit ${limit} bytes)`;

/** Marks the Node adapter leaves on a Request for the dispatcher (body.ts): cut off, and bytes read. */
export const TOO_LARGE = Symbol.for("hub.bodyTooLarge");
export const BODY_BYTES = Symbol.for("hub.bodyBytes");

export type Tagged = Request & { [TOO_LARGE]?: boolean; [BODY_BYTES]?: number };

/** Called by the adapter: the body was longer than the limit (declared or sent) and was not read. */
export function markTooLarge(request: Request): Request {
  (request as Tagged)[TOO_LARGE] = true;
  return request;
}

/** Called by the adapter: how many body bytes were read. */
export function markBodyBytes(request: Request, bytes: number): Request {
  (request as Tagged)[BODY_BYTES] = bytes;
  return request;
}
