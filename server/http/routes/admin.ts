import { pub, roles, ADMIN, HDAB } from "./access";
import { routesOf } from "./build";
import type { RouteSpec } from "./types";

const operator = routesOf("operator");
const audit = routesOf("audit");
const policies = routesOf("policies");
const auth = routesOf("auth");

/** The routes of the operator console, audit, policies, sign-in and the demonstration DSP catalogue. */
export const adminRoutes: RouteSpec[] = [
  operator("/api/admin/tenants", { GET: [roles(ADMIN), "Tenants (spec: admin)"] }),
  audit("/api/admin/audit", { GET: [roles(ADMIN, HDAB), "Audit entries (spec: admin or HDAB)"] }),
  audit("/api/admin/audit/retention", {
    GET: [roles(ADMIN, HDAB), "Retention per entry kind"],
    POST: [roles(ADMIN, HDAB), "Set a retention period"],
  }),
  operator("/api/admin/components", { GET: [roles(ADMIN), "Components and their health"] }),
  operator("/api/admin/components/topology", { GET: [roles(ADMIN), "Dependency graph"] }),
  operator("/api/admin/components/:name/diagnosis", { GET: [roles(ADMIN), "What the probe saw"] }),
  operator("/api/admin/components/:name/restart", { POST: [roles(ADMIN), "Re-initialise a component"] }),
  operator("/api/admin/participants", {
    GET: [roles(ADMIN), "Participant directory for the crawler"],
    POST: [roles(ADMIN), "Add a directory entry"],
    DELETE: [roles(ADMIN), "Remove a directory entry"],
  }),
  policies("/api/admin/policies", {
    GET: [roles(ADMIN, HDAB), "ODRL policies (spec: admin or HDAB)"],
    POST: [roles(ADMIN, HDAB), "Create a policy", "body"],
    PUT: [roles(ADMIN, HDAB), "Replace a policy", "body"],
    DELETE: [roles(ADMIN, HDAB), "Delete a policy", "query"],
  }),
  operator("/api/debug/phase26", { GET: [roles(ADMIN), "Federated discovery check (spec: admin)"] }),
  auth("/api/keycloak-config", { GET: [pub, "Where the identity provider is (spec: public)"] }),
  operator("/api/mock-dsp/:participant/catalog/request", {
    GET: [{ kind: "session-or-crawler" }, "Demonstration DSP catalogue (spec: session or crawler token)"],
    POST: [{ kind: "session-or-crawler" }, "Demonstration DSP catalogue request"],
  }),
  auth("/api/auth/:rest*", {
    GET: [pub, "Session and provider information for clients (spec: sign-in routes)"],
    POST: [pub, "Sign-in flow endpoints (spec: sign-in routes)"],
  }),
];
