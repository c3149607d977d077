import type { ServerBuild } from "@remix-run/node";
import { isApiError, storeError } from "./errors";

/**
 * A page whose loader or action meets a service that is away (an ApiError 503: the graph database
 * unreachable, the store locked, the hosted stack stopped) answers 503 with the service's own
 * message and its Retry-After, as the API does (a store that is busy or full included) — not Remix's 500 "unexpected server error" with a
 * stack in the log. Every other error is left to the route (most handle their 4xx in place).
 */
export const withUnavailablePages = (build: ServerBuild) => withRouteFunctions(build, asUnavailable);

type RouteFunction = (...args: never[]) => unknown;

/** `build` with every route's loader and action passed through `wrap` */
export function withRouteFunctions(
  build: ServerBuild,
  wrap: (fn: RouteFunction) => RouteFunction,
): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes).map(([id, route]) => {
      const { loader, action } = route.module;
      const module = {
        ...route.module,
        ...(loader ? { loader: wrap(loader) } : {}),
        ...(action ? { action: wrap(action) } : {}),
      };
      return [id, { ...route, module }];
    }),
  );
  return { ...build, routes: routes as ServerBuild["routes"] };
}

function asUnavailable(fn: RouteFunction): RouteFunction {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (caught) {
      const e = storeError(caught) ?? caught;
      if (isApiError(e) && (e.status === 503 || e.status === 409)) {
        throw new Response(e.message, {
          status: e.status,
          statusText: e.status === 503 ? "Service Unavailable" : "Conflict",
          headers: { "Content-Type": "text/plain; charset=utf-8", ...e.headers },
        });
      }
      throw e;
    }
  };
}
