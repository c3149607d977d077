import type { IncomingMessage, ServerResponse } from "node:http";
import compression from "compression";

/**
 * Every text answer of the edge (pages, their data, JSON, scripts and styles under /build) leaves
 * brotli- or gzip-encoded when the client takes it, by the `compression` middleware on Node's own
 * request and response (docs/decisions/0056): it negotiates Accept-Encoding (brotli first), adds
 * `Vary: Accept-Encoding`, leaves alone what is under 1 KiB, what is not a compressible type (images,
 * fonts) and what is already encoded (a kept answer's own gzip, server/http/node-adapter.ts), and
 * never a HEAD's or a `Cache-Control: no-transform` answer. An event stream is left as it is: its
 * events must not wait in the compressor's buffer.
 */
const middleware = compression({
  filter: (req, res) =>
    !/^text\/event-stream/i.test(String(res.getHeader("content-type") ?? "")) && compression.filter(req, res),
});

/** `next` answers `req` on `res`, its body encoded as the client takes it */
export function withCompression(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  // the middleware is typed for express; on Node's own request and response it needs only these
  middleware(req as Parameters<typeof middleware>[0], res as Parameters<typeof middleware>[1], next);
}
