import type { Access, HttpMethod, RouteSpec } from "./types";

/**
 * The route table's entries of one capability, written as `path, { METHOD: [access, summary] }`:
 * `routesOf("access-body")("/api/permits", { GET: [anyUser, "Register"] })` is the RouteSpec
 * `{ path, capability: "access-body", methods: { GET: { access, summary } } }`, methods in the
 * order written.
 */
export const routesOf =
  (capability: string) =>
  (path: string, methods: Partial<Record<HttpMethod, readonly [Access, string]>>): RouteSpec => ({
    path,
    capability,
    methods: Object.fromEntries(
      Object.entries(methods).map(([method, [access, summary]]) => [method, { access, summary }]),
    ) as RouteSpec["methods"],
  });
