import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchRoute, ROUTES, scanRoutes, type HttpMethod } from "./route-table";

describe("route table", () => {
  it("lists every /api path of the spec exactly once", () => {
    const paths = ROUTES.map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const p of paths) expect(p.startsWith("/api/")).toBe(true);
    expect(paths.length).toBeGreaterThanOrEqual(75);
  });

  it("prefers static segments over parameters", () => {
    const me = matchRoute("GET", "/api/participants/me");
    expect(me.kind === "match" && me.match.route.path).toBe("/api/participants/me");
    const defs = matchRoute("GET", "/api/credentials/definitions");
    expect(defs.kind === "match" && defs.match.route.path).toBe("/api/credentials/definitions");
    const del = matchRoute("DELETE", "/api/credentials/vc-1");
    expect(del.kind === "match" && del.match.params).toEqual({ id: "vc-1" });
    const topo = matchRoute("GET", "/api/admin/components/topology");
    expect(topo.kind === "match" && topo.match.route.path).toBe("/api/admin/components/topology");
  });

  it("decodes parameters, matches trailing slashes and catch-alls, and answers 405 with Allow", () => {
    const n = matchRoute("GET", "/api/negotiations/neg%3A1/");
    expect(n.kind === "match" && n.match.params.id).toBe("neg:1");
    const a = matchRoute("POST", "/api/auth/callback/oidc");
    expect(a.kind === "match" && a.match.params.rest).toBe("callback/oidc");
    expect(matchRoute("PUT", "/api/catalog")).toEqual({
      kind: "method-not-allowed",
      allow: ["GET", "POST", "DELETE"],
    });
    expect(matchRoute("GET", "/api/nothing-here")).toEqual({ kind: "none" });
    const head = matchRoute("HEAD", "/api/health");
    expect(head.kind).toBe("match");
  });

  it("lets the most specific matching path decide, as OpenAPI does: its methods or 405", () => {
    // each of these paths is also matched by a templated route with the method (0082)
    expect(matchRoute("PATCH", "/api/participants/me")).toEqual({
      kind: "method-not-allowed",
      allow: ["GET"],
    });
    expect(matchRoute("DELETE", "/api/credentials/definitions")).toEqual({
      kind: "method-not-allowed",
      allow: ["GET"],
    });
    expect(matchRoute("DELETE", "/api/credentials/request")).toEqual({
      kind: "method-not-allowed",
      allow: ["POST"],
    });
    expect(matchRoute("GET", "/api/auth/eudi/start")).toEqual({
      kind: "method-not-allowed",
      allow: ["POST"],
    });
    expect(matchRoute("POST", "/api/auth/eudi/status")).toEqual({
      kind: "method-not-allowed",
      allow: ["GET"],
    });
  });

  it("keeps the spec's stated access rules", () => {
    const access = (m: string, p: string) => {
      const r = matchRoute(m, p);
      if (r.kind !== "match") throw new Error(`${m} ${p} not matched`);
      return r.match.methodSpec.access;
    };
    expect(access("GET", "/api/health")).toEqual({ kind: "public" });
    expect(access("GET", "/api/information")).toEqual({ kind: "public" });
    expect(access("GET", "/api/keycloak-config")).toEqual({ kind: "public" });
    expect(access("POST", "/api/app-accounts")).toEqual({ kind: "device-attestation" });
    expect(access("POST", "/api/catalog")).toEqual({
      kind: "session",
      roles: ["DATA_HOLDER", "CONNECTOR_ADMIN"],
    });
    expect(access("GET", "/api/debug/phase26")).toEqual({ kind: "session", roles: ["CONNECTOR_ADMIN"] });
    expect(access("GET", "/api/mock-dsp/lmc/catalog/request")).toEqual({ kind: "session-or-crawler" });
    for (const r of ROUTES.filter((r) => r.path.startsWith("/api/admin/"))) {
      for (const spec of Object.values(r.methods)) {
        expect(spec.access.kind).toBe("session");
        const roles = (spec.access as unknown as { roles: string[] }).roles;
        expect(roles).toContain("CONNECTOR_ADMIN");
        const extra = roles.filter((x) => x !== "CONNECTOR_ADMIN");
        if (extra.length)
          expect(r.path.startsWith("/api/admin/policies") || r.path.startsWith("/api/admin/audit")).toBe(
            true,
          );
      }
    }
  });

  it("matches every path as the scan of the whole table does (the static routes looked up first)", () => {
    const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    // the table's own paths, parameters filled in, with and without a trailing slash, and near misses
    const paths = ROUTES.flatMap((r) => {
      const p = r.path.replace(/:[^/]+\*/g, "a/b").replace(/:[^/]+/g, "x-1");
      return [p, `${p}/`, `${p}x`, p.slice(0, p.lastIndexOf("/")) || "/"];
    });
    const scan = (method: string, path: string) =>
      scanRoutes((method === "HEAD" ? "GET" : method) as HttpMethod, path);
    for (const path of paths)
      for (const method of methods) expect(matchRoute(method, path)).toEqual(scan(method, path));
    // asked again, the kept result: the same, its params shared and frozen
    for (const path of paths)
      for (const method of methods) {
        const again = matchRoute(method, path);
        expect(again).toEqual(scan(method, path));
        if (again.kind === "match" && Object.keys(again.match.params).length)
          expect(Object.isFrozen(again.match.params)).toBe(true);
      }
    fc.assert(
      fc.property(
        fc.constantFrom(...methods),
        fc.array(fc.constantFrom("api", "catalog", "graph", "node", "tasks", "participants", "me", "x", ""), {
          maxLength: 5,
        }),
        (method, segments) => {
          const path = `/${segments.join("/")}`;
          expect(matchRoute(method, path)).toEqual(scan(method, path));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
