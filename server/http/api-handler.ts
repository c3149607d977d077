import type { SessionStore } from "../auth/sessions";
import { sameSecret } from "../config/same-secret";
import { hasAnyRole, type SessionUser } from "../auth/user";
import type { Config } from "../config";
import { ApiError, errorResponse, forbidden, json, unauthorized } from "./errors";
import type { HandlerContext, HandlerMap } from "./handler";
import type { OfficeGate } from "./office-gate";
import { matchRoute, routeKey, type Access } from "./route-table";
import { BODY_TOO_LARGE, checkRequestBody, isTooLarge } from "./body";
import { checkParams, parseBody, parseQuery, type Contracts, type ParsedInput } from "./contract";
import { isCrossSiteRequest } from "./security-headers";
import { offlineResponse } from "./offline-notice";
import type { RequestHead } from "./request-head";
import { createRouteKeeper, type Versions } from "./kept";
import { requestPath } from "./node-adapter";

/** What the dispatcher itself reads from the service container. */
export interface DispatcherServices {
  config: Config;
  officeHours: OfficeGate;
  sessions: Pick<SessionStore, "userFromRequest" | "cachedUser">;
  /** where refused requests (401, 403) go: the audit, coalesced (server/audit/access-log.ts) */
  accessLog?: { refused(refusal: { actor: string | null; what: string; status: number }): Promise<void> };
  /** the version counters that kept answers are keyed by; without them no answer is kept */
  versions?: Versions;
}

/**
 * A handler's context: the web Request, the URL and its query made only when the handler reads them.
 * One class, so that every request's context has the same shape: an object literal with getters keeps
 * each request's closures alive until the next mark-compact (decision 0039).
 */
class DispatchContext<S> implements HandlerContext<S> {
  #request: Request | undefined;
  #query: URLSearchParams | undefined;
  constructor(
    readonly head: RequestHead,
    private readonly webRequest: () => Request,
    private parsed: URL | undefined,
    readonly params: Record<string, string>,
    readonly user: SessionUser | null,
    readonly services: S,
    readonly input: ParsedInput,
  ) {}
  get request(): Request {
    return (this.#request ??= this.webRequest());
  }
  get headers(): RequestHead["headers"] {
    return this.head.headers;
  }
  get url(): URL {
    return (this.parsed ??= new URL(this.head.url));
  }
  get query(): URLSearchParams {
    return (this.#query ??= this.parsed ? this.parsed.searchParams : queryOf(this.head.url));
  }
}

/**
 * The /api dispatcher: static mode → route table → office hours → origin check (Origin, else
 * Referer) → body size (413) → session and role guard → content type and JSON syntax (415, 400)
 * → handler (or its kept answer, for a GET route that declares `keep`) → JSON.
 * Every answer is JSON; nothing escapes as HTML or a stack trace. A request is given as its head
 * (method, URL, headers) and a way to build its web `Request`, called only when it is needed: a body
 * to check, or a handler that reads `ctx.request` (server/http/request-head.ts). The Node listener
 * (server/app.ts) enters here.
 */
export function createApiDispatcher<S extends DispatcherServices>(
  services: S,
  handlers: HandlerMap<S>,
  contracts: Contracts = {},
) {
  const { config } = services;
  const allowedOrigins = [new URL(config.publicUrl).origin];
  // static mode answers no API (and its container has no versions)
  const versions = config.appMode === "static" ? undefined : services.versions;
  const keptAnswer = versions && createRouteKeeper(versions);

  return async function dispatch(request: RequestHead, webRequest: () => Request): Promise<Response> {
    let parsed: URL | undefined;
    // for the record of a refusal: the route of the table (never the caller's path) and who asked
    let route: { method: string; route: { path: string } } | undefined;
    let user: SessionUser | null = null;
    try {
      const pathname = plainPathname(request.url) ?? (parsed = new URL(request.url)).pathname;
      if (config.appMode === "static") {
        return json({ error: "The API is off in static mode: this deployment serves fixtures only" }, 404);
      }
      const result = matchRoute(request.method, pathname);
      if (result.kind === "none") return json({ error: `Not found: ${pathname}` }, 404);
      if (result.kind === "method-not-allowed") {
        const allow = { Allow: result.allow.join(", ") };
        if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: allow });
        return json({ error: `Method ${request.method} not allowed on ${pathname}` }, 405, allow);
      }
      const { match } = result;
      route = match;

      if (pathname !== "/api/health") {
        const status = services.officeHours.status(new Date());
        if (!status.open) return offlineResponse(status, "api", services.officeHours.timeZone);
      }
      if (isCrossSiteRequest(request, allowedOrigins)) {
        throw new ApiError(403, "Cross-origin request refused");
      }
      // an over-long body was left unread by the adapter (which closes the connection): refuse it first
      if (isTooLarge(request)) throw new ApiError(413, BODY_TOO_LARGE);

      // a cached session at once; the store only when it must be asked
      const cachedUser = services.sessions.cachedUser(request);
      user = cachedUser !== undefined ? cachedUser : await services.sessions.userFromRequest(request);
      authorise(match.methodSpec.access, user, request, services);
      // content type and JSON syntax after the guard: an anonymous caller learns nothing more than 401.
      // The sign-in routes also take the form posts of NextAuth-style clients.
      const body =
        request.method !== "GET" && request.method !== "HEAD"
          ? await checkRequestBody(
              webRequest(),
              match.route.path === "/api/auth/:rest*" ? "json-or-form" : "json",
            )
          : undefined;

      const key = routeKey(match.method, match.route.path);
      const handler = handlers[key];
      if (!handler) {
        return json({ error: `Not implemented yet: ${match.method} ${match.route.path}` }, 501);
      }
      // the route's declaration (server/http/contract.ts): path, query and body parsed before the handler
      const contract = contracts[key];
      checkParams(contract, match.params);
      const query = contract?.query ? parseQuery(contract, queryOf(request.url)) : undefined;
      const input: ParsedInput = { query: query ?? {}, body: parseBody(contract, body) };
      const ctx = new DispatchContext(request, webRequest, parsed, match.params, user, services, input);
      const keep = match.method === "GET" ? match.route.keep : undefined;
      const response =
        keep && keptAnswer
          ? await keptAnswer(match.route.path, keep, { user, params: match.params, url: request.url }, () =>
              handler(ctx),
            )
          : await handler(ctx);
      return request.method === "HEAD" ? new Response(null, response) : response;
    } catch (e) {
      const response = errorResponse(e);
      // a refusal is answered once it is on record (as a look is); one not written in time (logged
      // by the audit) is answered all the same: the refusal shows nothing
      if (route && (response.status === 401 || response.status === 403))
        await services.accessLog
          ?.refused({
            actor: user?.username ?? null,
            what: `${route.method} ${route.route.path}`,
            status: response.status,
          })
          .catch(() => {});
      return response;
    }
  };
}

/**
 * The path of an absolute URL whose path needs no normalising (letters, digits, `-._~/`, no `.` or
 * `..` segment, no `//`): what `new URL(url).pathname` gives, without parsing the whole URL on every
 * request. Undefined for anything else, which `URL` then parses.
 */
export function plainPathname(url: string): string | undefined {
  const scheme = url.indexOf("://");
  if (scheme < 0) return undefined;
  const start = url.indexOf("/", scheme + 3);
  if (start < 0) return undefined;
  const path = requestPath(url.slice(start));
  return PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path) ? path : undefined;
}
/**
 * The query parameters of an absolute URL, parsed from its query text alone when that is printable
 * ASCII (percent-decoding and `+` as a space are URLSearchParams' own): the same names and values as
 * `new URL(url).searchParams`, without parsing the rest of the URL. Any other query is URL's to parse.
 */
export function queryOf(url: string): URLSearchParams {
  const q = url.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const h = url.indexOf("#", q);
  const text = h < 0 ? url.slice(q + 1) : url.slice(q + 1, h);
  // anything but printable ASCII (which URL would percent-encode first, and decode otherwise): URL's way
  if (NOT_PRINTABLE_ASCII.test(text)) return new URL(url).searchParams;
  // the constructor drops one leading "?" of a string, which would be a name here: an empty pair first keeps it
  return new URLSearchParams(text.startsWith("?") ? `&${text}` : text);
}
const NOT_PRINTABLE_ASCII = /[^\x21-\x7e]/;
const PLAIN_PATH = /^(\/[A-Za-z0-9\-._~]+)+\/?$|^\/$/;
const DOT_SEGMENT = /\/\.\.?(\/|$)/;

function authorise(
  access: Access,
  user: SessionUser | null,
  request: RequestHead,
  services: DispatcherServices,
) {
  switch (access.kind) {
    case "public":
    case "device-attestation":
      return;
    case "session-or-crawler": {
      if (user) return;
      const token = services.config.crawlerToken;
      const auth = request.headers.get("authorization") ?? "";
      if (token && sameSecret(auth, `Bearer ${token}`)) return;
      throw unauthorized();
    }
    case "patient-or-device":
      // a device-bound credential is checked by the handler; a cookie session must be a patient's
      if (user && !user.roles.includes("PATIENT")) throw forbidden();
      if (!user && !request.headers.get("authorization")) throw unauthorized();
      return;
    case "session":
      if (!user) throw unauthorized();
      if (access.roles !== "any" && !hasAnyRole(user, access.roles)) throw forbidden();
      return;
  }
}
