import { accessBodyRoutes } from "./routes/access-body";
import { adminRoutes } from "./routes/admin";
import { coreRoutes } from "./routes/core";
import { dataspaceRoutes } from "./routes/dataspace";
import { insightRoutes } from "./routes/insight";
import { patientRoutes } from "./routes/patient";
import type { HttpMethod, MethodSpec, RouteSpec } from "./routes/types";

export type { Access, ActsIn, HttpMethod, MethodSpec, RouteSpec } from "./routes/types";

/**
 * The one route table: every /api path of the spec with its methods, who may call it and
 * whether a session is needed, written by area in routes/. The dispatcher (api-handler.ts),
 * the authorisation tests and the OpenAPI document (server/openapi) all read this table. Handlers are bound by key ("GET /api/catalog")
 * in server/api-routes.ts; a listed route without a handler answers 501.
 *
 * Access rules stated by the spec (section 5) are marked "spec"; the others are our decisions,
 * recorded in docs/decisions/0003-route-access.md.
 */

export const ROUTES: RouteSpec[] = [
  ...coreRoutes,
  ...patientRoutes,
  ...accessBodyRoutes,
  ...dataspaceRoutes,
  ...insightRoutes,
  ...adminRoutes,
];

export interface CompiledRoute {
  spec: RouteSpec;
  regex: RegExp;
  paramNames: string[];
  /** higher = more specific (more static segments); used to order matches */
  specificity: number;
}

function compile(spec: RouteSpec): CompiledRoute {
  const paramNames: string[] = [];
  let specificity = 0;
  const parts = spec.path
    .split("/")
    .filter(Boolean)
    .map((seg) => {
      if (seg.startsWith(":") && seg.endsWith("*")) {
        paramNames.push(seg.slice(1, -1));
        return "(.+)";
      }
      if (seg.startsWith(":")) {
        paramNames.push(seg.slice(1));
        return "([^/]+)";
      }
      specificity += 10;
      return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    });
  return { spec, regex: new RegExp(`^/${parts.join("/")}/?$`), paramNames, specificity };
}

export const COMPILED_ROUTES: CompiledRoute[] = ROUTES.map(compile).sort(
  (a, b) => b.specificity - a.specificity,
);

export interface RouteMatch {
  route: RouteSpec;
  method: HttpMethod;
  methodSpec: MethodSpec;
  params: Record<string, string>;
}

export type MatchResult =
  | { kind: "match"; match: RouteMatch }
  | { kind: "method-not-allowed"; allow: HttpMethod[] }
  | { kind: "none" };

/**
 * The routes without parameters by path: a path that equals one of them is matched by it before any
 * route with parameters (it has the most static segments a route matching that path can have), so
 * when it has the method the table need not be scanned.
 */
const STATIC_ROUTES = new Map(
  COMPILED_ROUTES.filter((c) => c.paramNames.length === 0).map((c) => [c.spec.path, c]),
);

/**
 * The scan's results by method and path, for paths asked again (a client polling one resource, a page's
 * data): the table is scanned once per path, not a regular expression per route on every request. At
 * most MATCHES_KEPT paths, all forgotten when full (paths are the caller's to choose). Results are
 * shared: their params are frozen.
 */
const MATCHES_KEPT = 2048;
const scanned = new Map<string, MatchResult>();

export function matchRoute(method: string, pathname: string): MatchResult {
  const m = (method === "HEAD" ? "GET" : method) as HttpMethod;
  const exact = STATIC_ROUTES.get(
    pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname,
  );
  const methodSpec = exact?.spec.methods[m];
  if (exact && methodSpec)
    return { kind: "match", match: { route: exact.spec, method: m, methodSpec, params: {} } };
  const key = `${m} ${pathname}`;
  let result = scanned.get(key);
  if (!result) {
    result = scanRoutes(m, pathname);
    if (result.kind === "match") Object.freeze(result.match.params);
    if (scanned.size >= MATCHES_KEPT) scanned.clear();
    scanned.set(key, result);
  }
  return result;
}

/**
 * The most specific route whose path matches decides, as OpenAPI matches a URL (a concrete path before
 * a templated one, docs/decisions/0082): when it lacks the method the answer is 405 with its methods,
 * never a fall-through to a less specific route (DELETE /api/credentials/definitions is not DELETE
 * /api/credentials/{id}; POST /api/auth/eudi/status is not the sign-in routes' POST).
 */
export function scanRoutes(m: HttpMethod, pathname: string): MatchResult {
  for (const c of COMPILED_ROUTES) {
    const r = c.regex.exec(pathname);
    if (!r) continue;
    const methodSpec = c.spec.methods[m];
    if (!methodSpec)
      return { kind: "method-not-allowed", allow: Object.keys(c.spec.methods) as HttpMethod[] };
    const params = Object.fromEntries(c.paramNames.map((name, i) => [name, safeDecode(r[i + 1])]));
    return { kind: "match", match: { route: c.spec, method: m, methodSpec, params } };
  }
  return { kind: "none" };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export const routeKey = (method: HttpMethod, path: string) => `${method} ${path}`;
