import type { ServerBuild } from "@remix-run/node";
import { isApiError, storeError } from "./errors";

/**
 * A page whose loader or action meets a service that is away (an ApiError 503: the graph database
 * unreachable, the store locked, the hosted stack stopped) answers 503 with the service's own
 * message and its Retry-After, as the API does (a store that is busy or full included) — not Remix's 500 "unexpected server error" with a
 * stack in the log. Every other error is left to the route (most handle their 4xx in place).
 */
export function withUnavailablePages(build: ServerBuild): ServerBuild {
  const routes = Object.fromEntries(
    Object.entries(build.routes).map(([id, route]) => {
      const { loader, action } = route.module;
      const module = {
        ...route.module,
        ...(loader ? { loader: asUnavailable(loader) } : {}),
        ...(action ? { action: asUnavailable(action) } : {}),
      };
      return [id, { ...route, module }];
    }),
  );
  return { ...build, routes };
}

function asUnavailable<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => Promise<Awaited<R>> {
  return async (...args: A): Promise<Awaited<R>> => {
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
