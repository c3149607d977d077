import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import send from "send";
import serveStatic from "serve-static";
import { sendText } from "./node-adapter";

/**
 * The files the server hands out as they are on disk: the browser build under /build (hashed names,
 * cached for a year) and the favicon. `serve-static` and `send` work on Node's own request and
 * response, without express (docs/decisions/history/0041): conditional requests, ranges, HEAD and path
 * checks are theirs.
 */

export const ASSETS_PATH = "/build";

type ErrorWithStatus = Error & { status?: number; statusCode?: number };

/** a file that could not be sent: its status (404, 403, 416 …) as plain text, nothing else of the error */
function fail(res: ServerResponse, err: ErrorWithStatus | undefined) {
  const status = err?.status ?? err?.statusCode ?? 404;
  if (status >= 500) console.error("[static] could not send a file:", err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name of ["cache-control", "etag", "last-modified", "content-range", "accept-ranges"])
    res.removeHeader(name);
  sendText(res, status, STATUS_CODES[status] ?? "Error");
}

export function createStaticFiles(opts: { clientAssets: string; favicon: string }) {
  const assets = serveStatic(opts.clientAssets, { immutable: true, maxAge: "1y", fallthrough: false });
  return {
    /** a path /build or below it: the file, or 404 (403 for a path that leaves the folder) */
    assets(req: IncomingMessage, res: ServerResponse) {
      // as when mounted at /build: the path below it, the whole URL kept for redirects of folders
      const url = req.url ?? "/";
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
      req.url = url.slice(ASSETS_PATH.length) || "/";
      if (!req.url.startsWith("/")) req.url = `/${req.url}`;
      assets(req, res, (err?: ErrorWithStatus) => fail(res, err));
    },
    /** GET or HEAD /favicon.ico */
    favicon(req: IncomingMessage, res: ServerResponse) {
      send(req, opts.favicon, { maxAge: "1h" })
        .on("error", (err: ErrorWithStatus) => fail(res, err))
        .pipe(res);
    },
  };
}
