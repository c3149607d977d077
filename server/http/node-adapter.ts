import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { markBodyBytes, markTooLarge, MAX_BODY_BYTES } from "./body";

/**
 * The Node edge of the web-standard dispatcher: express request → `Request`, `Response` → socket.
 * Bodies are read fully up to MAX_BODY_BYTES. A body declared (Content-Length) or sent (chunked)
 * over the limit is not read further: the Request is marked (the dispatcher answers 413 JSON) and
 * the connection is closed after that answer, since the unread rest of the body would otherwise be
 * parsed as the next request on a keep-alive connection. A response built by `rawBodyResponse` is
 * written straight from its Buffer, skipping the web stream machinery that costs milliseconds per
 * large body on Node 20.
 */

const RAW_BODY = Symbol.for("hub.rawBody");

/** A body kept encoded, with its gzip form made once and reused (e.g. a cached graph response). */
export class EncodedBody {
  private gz: Buffer | undefined;
  constructor(readonly raw: Buffer) {}
  gzip(): Buffer {
    this.gz ??= gzipSync(this.raw, { level: 6 });
    return this.gz;
  }
  toString() {
    return this.raw.toString("utf8");
  }
}

export function rawBodyResponse(body: EncodedBody, init: ResponseInit): Response {
  const res = new Response(body.raw as unknown as BodyInit, init);
  (res as unknown as Record<symbol, EncodedBody>)[RAW_BODY] = body;
  return res;
}

const acceptsGzip = (header: string | string[] | undefined) => /\bgzip\b/.test(String(header ?? ""));

/** `url` is the full URL (express strips mount paths from `req.url`: pass `req.originalUrl`). */
export async function toWebRequest(req: IncomingMessage, url: string): Promise<Request> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(":")) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return new Request(url, { method, headers });
  const body = await readBody(req);
  if (body === null) {
    closeAfterAnswer(req);
    headers.delete("content-length");
    return markTooLarge(new Request(url, { method, headers }));
  }
  const request = new Request(url, { method, headers, body: body as unknown as BodyInit });
  return markBodyBytes(request, body.byteLength);
}

/** The body, or null when it is (or is declared) longer than MAX_BODY_BYTES; then it is left unread. */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.pause();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const CLOSE_AFTER = new WeakSet<IncomingMessage>();

function closeAfterAnswer(req: IncomingMessage) {
  CLOSE_AFTER.add(req);
}

export async function sendWebResponse(
  res: ServerResponse,
  response: Response,
  acceptEncoding?: string | string[],
): Promise<void> {
  res.statusCode = response.status;
  const req = (res as ServerResponse & { req?: IncomingMessage }).req;
  if (req && CLOSE_AFTER.has(req)) {
    // the rest of a refused body is still in the socket: answer, then close the connection
    res.shouldKeepAlive = false;
    res.setHeader("connection", "close");
    res.once("finish", () => req.socket.destroySoon());
  }
  response.headers.forEach((value, key) => {
    if (key === "set-cookie") return;
    res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  const encoded = (response as unknown as Record<symbol, EncodedBody | undefined>)[RAW_BODY];
  if (encoded) {
    res.setHeader("vary", "Accept-Encoding");
    const body = acceptsGzip(acceptEncoding) && encoded.raw.byteLength > 1024 ? encoded.gzip() : encoded.raw;
    if (body !== encoded.raw) res.setHeader("content-encoding", "gzip");
    res.setHeader("content-length", body.byteLength);
    res.end(body);
    return;
  }
  const buf = Buffer.from(await response.arrayBuffer());
  if (response.status !== 204 && response.status !== 304) res.setHeader("content-length", buf.byteLength);
  res.end(buf);
}
