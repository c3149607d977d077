import type { KeepSpec } from "../kept";
import type { Access, ActsIn, HttpMethod, RouteSpec } from "./types";

/**
 * The route table's entries of one capability, written as `path, { METHOD: [access, summary, actsIn?] }`:
 * `routesOf("access-body")("/api/permits", { GET: [anyUser, "Register"] })` is the RouteSpec
 * `{ path, capability: "access-body", methods: { GET: { access, summary } } }`, methods in the
 * order written. A route whose GET answer is kept says so last: `{ keep: { caller, versions } }`.
 */
export const routesOf =
  (capability: string) =>
  (
    path: string,
    methods: Partial<Record<HttpMethod, readonly [Access, string] | readonly [Access, string, ActsIn]>>,
    options: { keep?: KeepSpec } = {},
  ): RouteSpec => ({
    path,
    capability,
    methods: Object.fromEntries(
      Object.entries(methods).map(([method, [access, summary, actsIn]]) => [
        method,
        actsIn ? { access, summary, actsIn } : { access, summary },
      ]),
    ) as RouteSpec["methods"],
    ...options,
  });
