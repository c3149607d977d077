import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { isObject, uriDecoded } from "../dataspace-protocol";

/**
 * A small JSON HTTP server and router for the local dataspace (Node-only, at the edge). Every
 * answer is JSON and says that this is a development connector; unknown routes answer 404 JSON;
 * errors answer in the EDC error format `[{message, type, path}]`.
 */

export interface LocalRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: unknown;
  /** the application/x-www-form-urlencoded body, when that was sent */
  form: URLSearchParams | undefined;
}

export interface LocalResponse {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type RouteHandler = (req: LocalRequest) => LocalResponse | Promise<LocalResponse>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "InvalidRequest",
    readonly path: string | null = null,
    /** further errors of the same answer (EDC answers a list) */
    readonly more: string[] = [],
  ) {
    super(message);
  }
}

/**
 * An answer of its status alone, without a body: what a JAX-RS filter's `abortWith(Response.status(…).build())`
 * gives (IdentityHub's API key filter)
 */
export class BareStatus extends HttpError {}

export const badRequest = (message: string, path: string | null = null) =>
  new HttpError(400, message, "ValidationFailure", path);
export const notFound = (message: string) => new HttpError(404, message, "ObjectNotFound");
export const conflict = (message: string) => new HttpError(409, message, "ObjectConflict");
export const unauthorized = (message = "Unauthorized") => new HttpError(401, message, "NotAuthorized");

/** the request's JSON object body (400 with `refusal` otherwise) */
export function objectBody(
  req: LocalRequest,
  refusal = "a JSON object body is required",
): Record<string, unknown> {
  if (!isObject(req.body)) throw badRequest(refusal);
  return req.body;
}

interface Route {
  method: string;
  regex: RegExp;
  names: string[];
  handler: RouteHandler;
  authenticated: boolean;
}

export class Router {
  private readonly routes: Route[] = [];

  /** `pattern` segments starting with `:` are parameters */
  add(
    method: string,
    pattern: string,
    handler: RouteHandler,
    options: { authenticated?: boolean } = {},
  ): this {
    const names: string[] = [];
    const source = pattern
      .split("/")
      .map((seg) => {
        if (seg.startsWith(":")) {
          names.push(seg.slice(1));
          return "([^/]+)";
        }
        return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("/");
    this.routes.push({
      method,
      regex: new RegExp(`^${source}/?$`),
      names,
      handler,
      authenticated: options.authenticated ?? true,
    });
    return this;
  }

  match(
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | "method-not-allowed" | undefined {
    let pathMatched = false;
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params = Object.fromEntries(route.names.map((n, i) => [n, uriDecoded(m[i + 1])]));
      return { route, params };
    }
    return pathMatched ? "method-not-allowed" : undefined;
  }
}

const MAX_BODY = 1_000_000;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, "request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, {
    "X-Local-Dataspace": "development",
    "Cache-Control": "no-store",
    ...(body === undefined ? {} : { "Content-Type": "application/json; charset=utf-8" }),
    ...headers,
  });
  res.end(text);
}

export async function startHttpServer(options: {
  host: string;
  port: number;
  router: Router;
  /** resolves when the request may pass an authenticated route; throws HttpError(401) otherwise */
  authenticate: (req: LocalRequest) => Promise<void>;
  onError?: (e: unknown) => void;
}) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://local");
      const method = (req.method ?? "GET").toUpperCase();
      const match = options.router.match(method, url.pathname);
      if (match === undefined || match === "method-not-allowed") {
        req.resume();
        const [status, message, type] =
          match === undefined
            ? [404, `Not found: ${method} ${url.pathname}`, "ObjectNotFound"]
            : [405, `Method ${method} not allowed on ${url.pathname}`, "MethodNotAllowed"];
        return send(res, status, [{ message, type, path: url.pathname }]);
      }
      const text = await readBody(req);
      const contentType = String(req.headers["content-type"] ?? "");
      let body: unknown;
      let form: URLSearchParams | undefined;
      if (contentType.includes("application/x-www-form-urlencoded")) {
        form = new URLSearchParams(text);
      } else if (text.trim() !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          throw badRequest("request body is not valid JSON");
        }
      }
      const request: LocalRequest = {
        method,
        path: url.pathname,
        params: match.params,
        query: url.searchParams,
        headers: req.headers,
        body,
        form,
      };
      if (match.route.authenticated) await options.authenticate(request);
      const out = await match.route.handler(request);
      send(res, out.status ?? 200, out.body, out.headers);
    } catch (e) {
      if (e instanceof BareStatus) return send(res, e.status, undefined);
      if (!(e instanceof HttpError)) options.onError?.(e);
      const err =
        e instanceof HttpError
          ? e
          : new HttpError(500, "Internal error of the local dataspace", "InternalError");
      const errors = [err.message, ...err.more];
      send(
        res,
        err.status,
        errors.map((message) => ({ message, type: err.type, path: err.path, invalidValue: null })),
      );
    }
  });
  server.keepAliveTimeout = 5_000;
  server.listen(options.port, options.host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
