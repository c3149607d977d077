import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { bodyTooLarge, markBodyBytes, markTooLarge, MAX_BODY_BYTES } from "./limits";

/**
 * The Node edge of the web-standard dispatcher: Node's request → `Request`, `Response` → socket.
 * Bodies are read fully up to MAX_BODY_BYTES. A body declared (Content-Length) or sent (chunked)
 * over the limit is not read further: the Request is marked (the dispatcher answers 413 JSON) and
 * the connection is closed after that answer, since the unread rest of the body would otherwise be
 * parsed as the next request on a keep-alive connection. A response built by `heldResponse` is
 * written straight from its Buffer (an EncodedBody) or its string, skipping the web stream machinery
 * (decision 0023).
 */

/**
 * A body kept encoded, with its gzip form made once and reused: a kept answer (server/http/kept), a
 * rendered document. A body made per request is a string (`heldResponse`), which the compression
 * middleware (compression.ts) encodes as the client takes it; a kept body's gzip is made once here
 * instead (decision 0054).
 */
export class EncodedBody {
  private gz: Buffer | undefined;
  readonly byteLength: number;
  constructor(readonly raw: Buffer) {
    this.byteLength = raw.byteLength;
  }
  gzip(): Buffer {
    this.gz ??= gzipSync(this.raw, { level: 6 });
    return this.gz;
  }
  toString() {
    return this.raw.toString("utf8");
  }
  static json(value: unknown): EncodedBody {
    return new EncodedBody(Buffer.from(JSON.stringify(value)));
  }
}

/**
 * A body held as it is, a string (e.g. JSON) or an EncodedBody (a cached answer): the adapter
 * writes it straight to the socket (an EncodedBody gzip-encoded when the client takes it), and
 * anyone else reads the Response as usual (`text()`, `json()`, `arrayBuffer()`, `body`,
 * `clone()`). The web stream of the body is made only if something asks for `body` (decision 0023).
 */
class HeldBodyResponse extends Response {
  readonly #held: string | EncodedBody;
  /** the headers as given, names lower-cased; the web `Headers` only once someone asks for them */
  readonly #plainHeaders: Record<string, string>;
  #headers: Headers | undefined;
  #used = false;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;
  constructor(held: string | EncodedBody, init: HeldInit) {
    super(null, { status: init.status, statusText: init.statusText });
    this.#held = held;
    if (init.headers instanceof Headers) {
      // web Headers as given (e.g. a document's, Set-Cookie lines and all): they are the headers
      this.#headers = init.headers;
      this.#plainHeaders = {};
    } else this.#plainHeaders = lowerCased(init.headers);
  }
  override get headers(): Headers {
    this.#headers ??= new Headers(this.#plainHeaders);
    return this.#headers;
  }
  /** the headers for the adapter as a plain record, unless someone holds (and may have changed) the web Headers */
  get plainHeaders(): Readonly<Record<string, string>> | undefined {
    return this.#headers ? undefined : this.#plainHeaders;
  }
  /** a string body, for the adapter; undefined once the body was read by someone else */
  get unreadText(): string | undefined {
    return this.#used || this.#stream || typeof this.#held !== "string" ? undefined : this.#held;
  }
  /** an encoded body, for the adapter (written as it is, even if someone read it) */
  get encoded(): EncodedBody | undefined {
    return typeof this.#held === "string" ? undefined : this.#held;
  }
  get #text(): string {
    return typeof this.#held === "string" ? this.#held : this.#held.toString();
  }
  override get bodyUsed(): boolean {
    return this.#used;
  }
  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    this.#stream ??= new Response(
      typeof this.#held === "string" ? this.#held : (this.#held.raw as unknown as BodyInit),
    ).body;
    return this.#stream;
  }
  #take(): Promise<string> {
    if (this.#used || this.#stream?.locked)
      return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
    this.#used = true;
    return this.#stream ? new Response(this.#stream).text() : Promise.resolve(this.#text);
  }
  override text(): Promise<string> {
    return this.#take();
  }
  override json(): Promise<unknown> {
    return this.#take().then((t) => JSON.parse(t) as unknown);
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#take().then((t) => new TextEncoder().encode(t).buffer as ArrayBuffer);
  }
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#take().then((t) => new TextEncoder().encode(t));
  }
  override blob(): Promise<Blob> {
    return this.#take().then((t) => new Blob([t], { type: this.headers.get("content-type") ?? "" }));
  }
  override clone(): Response {
    if (this.#used || this.#stream?.locked)
      throw new TypeError("Response.clone: Body has already been consumed.");
    return new HeldBodyResponse(this.#held, {
      status: this.status,
      statusText: this.statusText,
      headers: this.#headers ? new Headers(this.#headers) : { ...this.#plainHeaders },
    });
  }
}

/**
 * A held answer's status and headers: a record (names lower-cased here, as a web `Headers` gives
 * them), or a web `Headers`, taken as it is.
 */
export interface HeldInit {
  status?: number;
  statusText?: string;
  headers?: Record<string, string> | Headers;
}

/** a record of headers with lower-case names (a new object: the caller's stays its own) */
function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const k in headers) out[k.toLowerCase()] = headers[k];
  return out;
}

/** any HeadersInit as a plain record with lower-case names (repeated names joined, as `Headers` does) */
export function plainHeadersOf(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  new Headers(init).forEach((v, k) => (out[k] = v));
  return out;
}

/** an answer whose body is held as it is: a string (e.g. JSON made now) or an EncodedBody (a kept one) */
export function heldResponse(body: string | EncodedBody, init: HeldInit): Response {
  return new HeldBodyResponse(body, init);
}

/**
 * What an encoded body sends to a client with this Accept-Encoding: its gzip (made once) when it is
 * above 1 KiB and the client takes gzip, else its bytes.
 */
export function encodedFor(
  body: EncodedBody,
  acceptEncoding: string | string[] | undefined,
): { bytes: Buffer; gzip: boolean } {
  const gzip = body.byteLength > 1024 && /\bgzip\b/.test(String(acceptEncoding ?? ""));
  return { bytes: gzip ? body.gzip() : body.raw, gzip };
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(":")) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  return headers;
}

/**
 * A Request whose `signal` is the one it was given, itself: undici's Request would follow it through a
 * WeakRef and a FinalizationRegistry entry, which keep each page's listeners and all they reach alive
 * into the old generation (decision 0038). The signal still aborts the loaders when the client goes.
 */
class SignalledRequest extends Request {
  readonly #signal: AbortSignal;
  constructor(url: string, init: RequestInit, signal: AbortSignal) {
    super(url, init);
    this.#signal = signal;
  }
  override get signal(): AbortSignal {
    return this.#signal;
  }
  /** a copy with the same signal (the request has no body: only GET and HEAD are made here) */
  override clone(): Request {
    return new SignalledRequest(this.url, { method: this.method, headers: this.headers }, this.#signal);
  }
}

/**
 * The `Request` of a GET or HEAD (no body to read): built at once, e.g. when a handler asks for it;
 * `signal` aborts it (a page's loaders when the client goes) and is its `signal` as it is.
 */
export function bodilessWebRequest(req: IncomingMessage, url: string, signal?: AbortSignal): Request {
  const init = { method: req.method ?? "GET", headers: webHeaders(req) };
  return signal ? new SignalledRequest(url, init, signal) : new Request(url, init);
}

/** `url` is the full URL; `signal` (optional) aborts the Request, e.g. a form post's action when the client goes. */
export async function toWebRequest(
  req: IncomingMessage,
  url: string,
  signal?: AbortSignal,
): Promise<Request> {
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return bodilessWebRequest(req, url, signal);
  const headers = webHeaders(req);
  const body = await readBody(req);
  if (body === null) {
    closeAfterAnswer(req);
    headers.delete("content-length");
    return markTooLarge(new Request(url, { method, headers, signal }));
  }
  const request = new Request(url, { method, headers, body: body as unknown as BodyInit, signal });
  return markBodyBytes(request, body.byteLength);
}

/**
 * The body, or null when it is (or is declared) longer than `limit`; then reading stops there
 * (`closeAfterAnswer` discards the rest). Rejects when the client goes before the end. (Event
 * listeners, not `for await`: leaving that loop early destroys the request and with it the socket, so
 * no answer could be sent.)
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | null> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (e: Error) => {
      stop();
      reject(e);
    };
    // the client went away before the body was complete
    const onClose = () => onError(new Error("the client closed the connection during the request body"));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

/** How much of a refused body is read and discarded (and for how long) before the answer is sent. */
const DRAIN_BYTES = 16 * MAX_BODY_BYTES;
const DRAIN_MS = 2000;

/** Requests whose refused body is being discarded: the answer waits for the drain (bounded). */
const DRAINING = new WeakMap<IncomingMessage, Promise<void>>();

/**
 * The rest of a refused body is read and thrown away, up to DRAIN_BYTES or DRAIN_MS, so that the
 * client, still sending, receives the 413 cleanly; the connection is closed after the answer in any
 * case, so a body that is never finished cannot be taken for the next request. The answer must go
 * through `sendWebResponse`, which waits for the drain. Call it once the caller's own reading stopped.
 */
export function closeAfterAnswer(req: IncomingMessage) {
  if (Number(req.headers["content-length"] ?? "0") > DRAIN_BYTES) return DRAINING.set(req, Promise.resolve());
  const drained = new Promise<void>((resolve) => {
    let discarded = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    req.on("data", onData);
    req.once("end", done);
    req.once("error", done);
    req.once("close", done);
    req.resume();
  });
  DRAINING.set(req, drained);
}

/**
 * Writes `response` to `res`. `baseHeaders` (name, value, name, value, …; names lower-case) go first,
 * e.g. the API's security headers; the response's own headers override them. A held answer (json(),
 * heldResponse) whose web Headers nobody asked for is written with one `writeHead` of a flat list,
 * without building or iterating a `Headers`.
 */
export async function sendWebResponse(
  res: ServerResponse,
  response: Response,
  acceptEncoding?: string | string[],
  baseHeaders: readonly string[] = [],
): Promise<void> {
  const req = (res as ServerResponse & { req?: IncomingMessage }).req;
  const draining = req && DRAINING.get(req);
  const held = response instanceof HeldBodyResponse ? response : undefined;
  const plain = held?.plainHeaders;
  if (plain && !draining && !res.headersSent && res.getHeaderNames().length === 0) {
    const encoded = held!.encoded;
    const text = encoded ? undefined : held!.unreadText;
    if (encoded || text !== undefined)
      return writeHeld(res, held!.status, plain, encoded, text, acceptEncoding, baseHeaders);
  }
  for (let i = 0; i < baseHeaders.length; i += 2) res.setHeader(baseHeaders[i], baseHeaders[i + 1]);
  if (req && draining) {
    // a refused body: answer once it is discarded (bounded), then close the connection
    await draining;
    res.shouldKeepAlive = false;
    res.setHeader("connection", "close");
    res.once("finish", () => req.socket?.destroySoon());
  }
  res.statusCode = response.status;
  response.headers.forEach((value, key) => {
    if (key === "set-cookie") return;
    res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  const encoded = held?.encoded;
  if (encoded) {
    res.setHeader("vary", "Accept-Encoding");
    const { bytes, gzip } = encodedFor(encoded, acceptEncoding);
    if (gzip) res.setHeader("content-encoding", "gzip");
    res.setHeader("content-length", bytes.byteLength);
    res.end(bytes);
    return;
  }
  const text = held?.unreadText;
  const buf = text !== undefined ? Buffer.from(text) : Buffer.from(await response.arrayBuffer());
  if (response.status !== 204 && response.status !== 304) res.setHeader("content-length", buf.byteLength);
  res.end(buf);
}

/** 413 in the error model's JSON (as the /api's) for a refused body, sent once its rest is discarded (`closeAfterAnswer`) */
export const sendTooLarge = (res: ServerResponse, error = bodyTooLarge()) =>
  sendWebResponse(
    res,
    heldResponse(JSON.stringify({ error }), {
      status: 413,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    }),
  );

/** a held answer in one writeHead: base headers, then the answer's own (overriding), then the body's */
function writeHeld(
  res: ServerResponse,
  status: number,
  plain: Readonly<Record<string, string>>,
  encoded: EncodedBody | undefined,
  text: string | undefined,
  acceptEncoding: string | string[] | undefined,
  baseHeaders: readonly string[],
): void {
  const list: string[] = [];
  for (let i = 0; i < baseHeaders.length; i += 2)
    if (!(baseHeaders[i] in plain)) list.push(baseHeaders[i], baseHeaders[i + 1]);
  for (const k in plain) if (k !== "content-length") list.push(k, plain[k]);
  let body: Buffer;
  if (encoded) {
    const sent = encodedFor(encoded, acceptEncoding);
    body = sent.bytes;
    list.push("vary", "Accept-Encoding");
    if (sent.gzip) list.push("content-encoding", "gzip");
  } else body = Buffer.from(text!);
  if (status !== 204 && status !== 304) list.push("content-length", String(body.byteLength));
  res.writeHead(status, list);
  res.end(body);
}

/** the path of a request target (`req.url`), without its query or fragment */
export function requestPath(url: string): string {
  let end = url.indexOf("?");
  const h = url.indexOf("#");
  if (h !== -1 && (end === -1 || h < end)) end = h;
  return end === -1 ? url : url.slice(0, end);
}

/**
 * A short answer written at once (a refusal, a status's reason phrase, a small page): plain text
 * unless `headers` names another Content-Type.
 */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text); // Node leaves the body out of the answer to a HEAD request
}

/**
 * The last resort of a non-API answer that failed (`label` names who, in the log): 500 in plain
 * text, or, once the head is written, the connection ended so that the client sees a cut answer
 * rather than a complete-looking one.
 */
export function answerFailed(res: ServerResponse, label: string, e: unknown): void {
  console.error(`[${label}] could not answer:`, e);
  if (res.headersSent) res.destroy();
  else sendText(res, 500, "Internal Server Error");
}
