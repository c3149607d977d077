import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { matchRoutes } from "@remix-run/react";
import { LRUCache } from "lru-cache";

type RemixHandler = ReturnType<typeof createRequestHandler>;
/** a route as Remix's matcher takes it (id, path, index, children) */
type RouteNode = Parameters<typeof matchRoutes>[0][number];

/**
 * Remix's request handler, given for a page only the routes that page's document needs
 * (docs/decisions/0079). Remix matches a document's URL against every route twice per request, and
 * each match flattens, ranks and compiles all ~70 routes of the app again: about a third of a page's
 * server time. The routes a document needs are those its URL matches, and those of each shorter path
 * of it (what Remix sends the browser as the first route manifest: `getPartialManifest`); the best
 * match among all routes is also the best among these, so the page is the same, byte for byte, from
 * a build that holds only them. One handler per such set of routes (at most a few per route), found by
 * the URL's path, the last 5,000 paths kept. Everything else — actions, data requests (`.data`), the
 * route manifest (`/__manifest`), a path no route matches — goes to the handler of the whole build.
 */
export function createRemixHandlers(build: ServerBuild, mode: "production" | "development"): RemixHandler {
  const whole = createRequestHandler(build, mode);
  const tree = routeTree(build.routes);
  const bySet = new Map<string, RemixHandler>();
  const byPath = new LRUCache<string, RemixHandler>({ max: 5000 });

  const handlerOf = (pathname: string): RemixHandler => {
    let handler = byPath.get(pathname);
    if (handler) return handler;
    const ids = routesOfDocument(tree, pathname);
    if (!ids) handler = whole;
    else {
      const key = [...ids].sort().join(" ");
      handler = bySet.get(key) ?? createRequestHandler(withRoutes(build, ids), mode);
      bySet.set(key, handler);
    }
    byPath.set(pathname, handler);
    return handler;
  };

  return (request, loadContext) => {
    if (request.method !== "GET" && request.method !== "HEAD") return whole(request, loadContext);
    const { pathname } = new URL(request.url);
    if (pathname.endsWith(".data") || pathname === "/__manifest") return whole(request, loadContext);
    return handlerOf(pathname)(request, loadContext);
  };
}

/** the routes a document of `pathname` renders or announces, as Remix finds them; null: none matches */
export function routesOfDocument(tree: RouteNode[], pathname: string): Set<string> | null {
  const matched = matchRoutes(tree, pathname);
  if (!matched) return null;
  const ids = new Set(matched.map((m) => String(m.route.id)));
  // the same shorter paths as Remix's getPartialManifest (@remix-run/react fog-of-war.js)
  const segments = pathname.split("/").filter(Boolean);
  segments.pop();
  const paths = ["/"];
  for (; segments.length > 0; segments.pop()) paths.push(`/${segments.join("/")}`);
  for (const p of paths) for (const m of matchRoutes(tree, p) ?? []) ids.add(String(m.route.id));
  return ids;
}

/** the build's routes as the nested route objects Remix matches */
export function routeTree(routes: ServerBuild["routes"]): RouteNode[] {
  const childrenOf = (parentId: string | undefined): RouteNode[] =>
    Object.values(routes)
      .filter((r) => r.parentId === parentId)
      .map((r) => {
        const children = childrenOf(r.id);
        const node = { id: r.id, path: r.path, caseSensitive: r.caseSensitive };
        return r.index ? { ...node, index: true } : { ...node, ...(children.length ? { children } : {}) };
      });
  return childrenOf(undefined);
}

/** the build with only the routes `ids` (its server routes and its browser manifest alike) */
function withRoutes(build: ServerBuild, ids: Set<string>): ServerBuild {
  const pick = <T>(all: Record<string, T>) => Object.fromEntries([...ids].map((id) => [id, all[id]!]));
  return {
    ...build,
    routes: pick(build.routes),
    assets: { ...build.assets, routes: pick(build.assets.routes) },
  };
}
