import type { ServerBuild } from "@remix-run/node";
import { STATUS_CODES } from "node:http";
import { describeError, isApiError, storeError } from "./errors";

/**
 * A page whose loader or action throws an ApiError (a store that is busy or full included) answers
 * the error page with its status, message (and detail) and headers, as the API does: an upstream that
 * fails 502, a service that is away 503 with its Retry-After, a refusal or a missing record its 4xx —
 * not Remix's 500 "unexpected server error" with a stack in the log. Anything else (a bug) stays 500;
 * most routes show their 4xx in place before it comes to this.
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
      if (!isApiError(e) || e.status < 400 || e.status === 500) throw e;
      throw new Response(describeError(e), {
        status: e.status,
        statusText: STATUS_CODES[e.status],
        headers: { "Content-Type": "text/plain; charset=utf-8", ...e.headers },
      });
    }
  };
}
