import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { MAX_BODY_BYTES } from "./limits";

/**
 * The Node edge of the web-standard dispatcher: express request → `Request`, `Response` → socket.
 * Bodies are read fully (bounded by MAX_BODY_BYTES + 1, so the dispatcher can answer 413), and a
 * response built by `rawBodyResponse` is written straight from its Buffer, skipping the web stream
 * machinery that costs milliseconds per large body on Node 20.
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
  let body: Buffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES + 1) break;
      chunks.push(chunk as Buffer);
    }
    body = Buffer.concat(chunks);
  }
  return new Request(url, { method, headers, body: body as unknown as BodyInit | undefined });
}

export async function sendWebResponse(
  res: ServerResponse,
  response: Response,
  acceptEncoding?: string | string[],
): Promise<void> {
  res.statusCode = response.status;
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
