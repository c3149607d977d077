import type { IncomingMessage, ServerResponse } from "node:http";
import { writeReadableStreamToWritable, type AppLoadContext, type RequestHandler } from "@remix-run/node";
import { heldDocumentBody } from "./document-body";
import { exchangeSignal } from "./exchange-signal";
import { TOO_LARGE, type Tagged } from "./limits";
import { answerFailed, encodedFor, sendTooLarge, toWebRequest } from "./node-adapter";
import { isLoopback } from "./rate-limits";

/**
 * Every request that is not /api, /idp or a file is answered by Remix from Node's own request and
 * response (docs/decisions/history/0026, 0038, 0041): pages and their data, form posts and actions, and the
 * 404 page. Every answer is `Cache-Control: no-store` unless its route sets a Cache-Control of its own.
 */

/**
 * The URL Remix sees, as @remix-run/express built it with `trust proxy` set to loopback: protocol and
 * host name from X-Forwarded-Proto / X-Forwarded-Host when the peer is loopback, the port from
 * X-Forwarded-Host or Host.
 */
export function remixUrl(req: IncomingMessage): string {
  const trusted = isLoopback(req.socket.remoteAddress);
  const forwardedHost = req.headers["x-forwarded-host"] as string | undefined;
  const hostHeader = req.headers.host;
  let host = hostHeader;
  if (forwardedHost && trusted) host = forwardedHost.split(",")[0].trimEnd();
  let hostname = "";
  if (host) {
    const offset = host.startsWith("[") ? host.indexOf("]") + 1 : 0;
    const i = host.indexOf(":", offset);
    hostname = i !== -1 ? host.slice(0, i) : host;
  }
  const forwardedPort = Number.parseInt(forwardedHost?.split(":")[1] ?? "", 10);
  const hostPort = Number.parseInt(hostHeader?.split(":")[1] ?? "", 10);
  const port = Number.isSafeInteger(forwardedPort)
    ? forwardedPort
    : Number.isSafeInteger(hostPort)
      ? hostPort
      : "";
  let protocol = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  const forwardedProto = req.headers["x-forwarded-proto"];
  if (trusted && typeof forwardedProto === "string" && forwardedProto)
    protocol = forwardedProto.split(",")[0].trim();
  return new URL(`${protocol}://${hostname}${port ? `:${port}` : ""}${req.url}`).href;
}

/** Express's res.append/res.set: repeated headers add up; a text type without a charset gets utf-8 */
export function appendHeader(res: ServerResponse, key: string, value: string) {
  if (
    key === "content-type" &&
    !/;\s*charset\s*=/i.test(value) &&
    /^(text\/|application\/(javascript|json))/i.test(value.split(";")[0])
  )
    value += "; charset=utf-8";
  const prev = res.getHeader(key);
  if (prev === undefined) res.setHeader(key, value);
  else res.setHeader(key, Array.isArray(prev) ? [...prev, value] : [String(prev), value]);
}

/**
 * A page's answer as a refusal, or undefined: 401 and 403, and the redirect to sign in that a page
 * answers an anonymous caller with (its 401; Remix's data requests carry it in X-Remix-Redirect).
 * Named by the path's first segment, a literal of the app's routes (an unknown path is a 404, never
 * a refusal), not by the rest of the path, which the caller chose.
 */
export function pageRefusal(url: string, response: Response): { what: string; status: number } | undefined {
  let status: number | undefined;
  if (response.status === 401 || response.status === 403) status = response.status;
  else {
    const to = response.headers.get("x-remix-redirect") ?? response.headers.get("location");
    if (
      to &&
      /^\/auth\/signin(\?|$)/.test(to) &&
      (response.status === 302 || response.status === 202 || response.status === 204)
    )
      status = 401;
  }
  if (status === undefined) return undefined;
  const segment = new URL(url).pathname.split("/")[1]?.replace(/\.data$/, "") ?? "";
  return { what: `page /${/^[a-z0-9-]{1,40}$/.test(segment) ? segment : "(other)"}`, status };
}

/** a refused page on record, with who asked (server/audit/access-log.ts) */
async function noteRefusal(
  request: Request,
  context: AppLoadContext,
  refused: { what: string; status: number },
) {
  const { sessions, accessLog } = context.services;
  try {
    const user = sessions.cachedUser(request) ?? (await sessions.userFromRequest(request));
    await accessLog.refused({ actor: user?.username ?? null, ...refused });
  } catch (e) {
    console.error("[audit] a refused page was not put on record:", e);
  }
}

/**
 * Answers `req` with Remix's `handle`, `context` as its load context. The request's signal ends with
 * the exchange, as with @remix-run/express: loaders are aborted when the client goes before the answer
 * is written, and once it is written what Remix keeps per request until then is let go (the hand-off's
 * 4.95 s time-out timer, which would otherwise run out), and the signal lets go of its listeners
 * (server/http/exchange-signal.ts). A body over the limit is refused with 413 before Remix sees it.
 */
export function answerWithRemix(
  handle: RequestHandler,
  req: IncomingMessage,
  res: ServerResponse,
  context: AppLoadContext,
): void {
  const signal = exchangeSignal(res);
  Promise.resolve()
    .then(() => toWebRequest(req, remixUrl(req), signal))
    .then(async (request) => {
      if ((request as Tagged)[TOO_LARGE]) return sendTooLarge(res);
      const response = await handle(request, context);
      const refused = pageRefusal(request.url, response);
      if (refused) await noteRefusal(request, context, refused);
      res.statusMessage = response.statusText;
      res.statusCode = response.status;
      for (const [k, v] of response.headers.entries())
        // a document's own policy (its inline scripts' hashes) replaces the edge's nonce policy
        if (k === "content-security-policy") res.setHeader(k, v);
        else appendHeader(res, k, v);
      // every page is rendered for its caller (their data): no cache keeps it, unless the route says
      // otherwise (files under /build are not answered here and keep their own caching)
      if (!res.hasHeader("cache-control")) res.setHeader("Cache-Control", "no-store");
      const held = heldDocumentBody(response);
      if (held) {
        // a rendered document is compressed once (its gzip kept with it), never per answer
        appendHeader(res, "vary", "Accept-Encoding");
        const { bytes, gzip } = encodedFor(held, req.headers["accept-encoding"]);
        if (gzip) res.setHeader("Content-Encoding", "gzip");
        res.setHeader("Content-Length", bytes.byteLength);
        return void res.end(bytes);
      }
      if (/text\/event-stream/i.test(response.headers.get("content-type") ?? "")) res.flushHeaders();
      if (response.body) await writeReadableStreamToWritable(response.body, res);
      else res.end();
    })
    .catch((e: unknown) => answerFailed(res, "pages", e));
}
