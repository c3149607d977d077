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

/** the largest answer read from an upstream, and the error code of one larger (undici's) */
export const UPSTREAM_MAX_BYTES = 16 * 1024 * 1024;
export const ANSWER_TOO_LARGE = "UND_ERR_RES_EXCEEDED_MAX_SIZE";

/**
 * The text of an answer read by `fetch` (not from the pool), refused past `UPSTREAM_MAX_BYTES` with the
 * pool's error code: its length said so, or as many bytes came in.
 */
export async function cappedText(res: Response): Promise<string> {
  const tooLarge = () =>
    Object.assign(new Error("the answer is larger than an upstream answer may be"), {
      code: ANSWER_TOO_LARGE,
    });
  if (Number(res.headers.get("content-length")) > UPSTREAM_MAX_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
    chunks.push(r.value);
    if ((size += r.value.length) > UPSTREAM_MAX_BYTES) {
      await reader!.cancel().catch(() => undefined);
      throw tooLarge();
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** the JSON of an answer read by `fetch`, no further than UPSTREAM_MAX_BYTES (`cappedText`) */
export const cappedJson = async (res: Response): Promise<unknown> => JSON.parse(await cappedText(res));
