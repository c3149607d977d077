import { describe, expect, it } from "vitest";
import { ROUTES } from "../../server/http/route-table";
import { ANALYTICS_ROLES, PATIENT_LIST_ROLES, rolesOf } from "./access.server";
import { dataspaceNavFor, navFor } from "./navigation.server";

/** the view role lists come from the route table, and a key it does not hold fails loudly */
describe("rolesOf", () => {
  it("reads a route's roles from the table", () => {
    const analytics = ROUTES.find((r) => r.path === "/api/analytics")?.methods.GET?.access;
    expect(analytics?.kind === "session" && analytics.roles).toEqual(ANALYTICS_ROLES);
    expect(rolesOf("POST /api/catalog")).toEqual(["DATA_HOLDER", "CONNECTOR_ADMIN"]);
    expect(PATIENT_LIST_ROLES).toEqual(["DATA_HOLDER", "CONNECTOR_ADMIN"]);
  });

  it("throws for an unknown route, an unknown method and a route open to any session", () => {
    expect(() => rolesOf("GET /api/no-such-route")).toThrow(/has no GET \/api\/no-such-route/);
    expect(() => rolesOf("PUT /api/analytics")).toThrow(/has no PUT/);
    expect(() => rolesOf("GET /api/catalog")).toThrow(/not limited to roles/);
  });
});

describe("navigation", () => {
  const to = (items: { to: string }[]) => items.map((i) => i.to);
  it("gives each persona the entries its roles may open", () => {
    expect(to(navFor(["PATIENT"]))).toEqual([
      "/",
      "/catalogue",
      "/my-record",
      "/devices",
      "/register",
      "/information",
    ]);
    expect(to(navFor(["TRUST_CENTER_OPERATOR"]))).toEqual([
      "/",
      "/catalogue",
      "/graph",
      "/cohorts",
      "/eehrxf",
      "/discover",
      "/register",
      "/information",
      "/trust-center",
      "/credentials",
    ]);
    expect(to(navFor(["CONNECTOR_ADMIN"]))).toContain("/directory");
    expect(to(navFor(["DATA_USER", "CONNECTOR_USER_PARTICIPANT"]))).not.toContain("/onboarding");
  });

  it("shows the dataspace sub-navigation's participant list to staff, sharing to holders", () => {
    expect(to(dataspaceNavFor(["HDAB_AUTHORITY"]))).toEqual(["/discover", "/onboarding"]);
    expect(to(dataspaceNavFor(["DATA_HOLDER"]))).toContain("/share");
    expect(dataspaceNavFor(["PATIENT"])).toEqual([]);
  });
});
