import { describe, expect, it } from "vitest";
import { findPersona } from "../../server/auth/personas";
import { COMPILED_ROUTES, matchRoute, type Access } from "../../server/http/route-table";
import { fillPath, placeholdersOf } from "./ids";
import { pathFor, ROUTES as BENCH_ROUTES } from "./routes";

/** the bench's /api paths as the server would see them: ids filled with a sample, the query left off */
const benchApiPaths = BENCH_ROUTES.map((r) => pathFor(r, 10_000))
  .filter((p) => p.startsWith("/api"))
  .map((p) => {
    const filled = fillPath(p, Object.fromEntries(placeholdersOf(p).map((n) => [n, "sample-id"])));
    return { given: p, pathname: filled.split("?")[0] };
  });

/** whether a persona may call a route with this access rule (what the dispatcher checks, server/http/api-handler.ts) */
function allows(access: Access, username: string): boolean {
  const roles = findPersona(username)?.roles ?? [];
  switch (access.kind) {
    case "public":
      return true;
    case "session":
      return access.roles === "any" || access.roles.some((r) => roles.includes(r));
    case "session-or-crawler":
      return roles.length > 0;
    case "patient-or-device":
      return roles.includes("PATIENT");
    case "device-attestation":
      return false;
  }
}

describe("the bench's routes (scripts/bench/routes.ts)", () => {
  it("measure every GET route of the route table", () => {
    const unmeasured = COMPILED_ROUTES.filter((c) => c.spec.methods.GET)
      .filter((c) => !benchApiPaths.some((b) => c.regex.test(b.pathname)))
      .map((c) => c.spec.path);
    expect(unmeasured).toEqual([]);
  });

  it("name only GET routes of the table, as a persona the route lets in", () => {
    const wrong = BENCH_ROUTES.filter((r) => pathFor(r, 10_000).startsWith("/api")).flatMap((r) => {
      const { pathname } = benchApiPaths.find((b) => b.given === pathFor(r, 10_000))!;
      const m = matchRoute("GET", pathname);
      if (m.kind !== "match") return [`${r.name}: ${pathname} is no GET route (${m.kind})`];
      return allows(m.match.methodSpec.access, r.persona) ? [] : [`${r.name}: ${r.persona} may not call it`];
    });
    expect(wrong).toEqual([]);
  });

  it("give every route a name of its own", () => {
    const names = BENCH_ROUTES.map((r) => r.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it("fill ids into paths and refuse a path whose id was not found", () => {
    expect(placeholdersOf("/api/negotiations/{negotiation}?participantId=pharmaco")).toEqual(["negotiation"]);
    expect(fillPath("/api/x/{id}/y", { id: "a b/c" })).toBe("/api/x/a%20b%2Fc/y");
    expect(() => fillPath("/api/x/{id}", {})).toThrow("no id found for {id}");
  });
});
