import { pub, roles, ADMIN, HDAB } from "./access";
import type { RouteSpec } from "./types";

/** The routes of the operator console, audit, policies, sign-in and the demonstration DSP catalogue. */
export const adminRoutes: RouteSpec[] = [
  {
    path: "/api/admin/tenants",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Tenants (spec: admin)" } },
  },
  {
    path: "/api/admin/audit",
    capability: "audit",
    methods: { GET: { access: roles(ADMIN, HDAB), summary: "Audit entries (spec: admin or HDAB)" } },
  },
  {
    path: "/api/admin/audit/retention",
    capability: "audit",
    methods: {
      GET: { access: roles(ADMIN, HDAB), summary: "Retention per entry kind" },
      POST: { access: roles(ADMIN, HDAB), summary: "Set a retention period" },
    },
  },
  {
    path: "/api/admin/components",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Components and their health" } },
  },
  {
    path: "/api/admin/components/topology",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Dependency graph" } },
  },
  {
    path: "/api/admin/components/:name/diagnosis",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "What the probe saw" } },
  },
  {
    path: "/api/admin/components/:name/restart",
    capability: "operator",
    methods: { POST: { access: roles(ADMIN), summary: "Re-initialise a component" } },
  },
  {
    path: "/api/admin/participants",
    capability: "operator",
    methods: {
      GET: { access: roles(ADMIN), summary: "Participant directory for the crawler" },
      POST: { access: roles(ADMIN), summary: "Add a directory entry" },
      DELETE: { access: roles(ADMIN), summary: "Remove a directory entry" },
    },
  },
  {
    path: "/api/admin/policies",
    capability: "policies",
    methods: {
      GET: { access: roles(ADMIN, HDAB), summary: "ODRL policies (spec: admin or HDAB)" },
      POST: { access: roles(ADMIN, HDAB), summary: "Create a policy" },
      PUT: { access: roles(ADMIN, HDAB), summary: "Replace a policy" },
      DELETE: { access: roles(ADMIN, HDAB), summary: "Delete a policy" },
    },
  },
  {
    path: "/api/debug/phase26",
    capability: "operator",
    methods: { GET: { access: roles(ADMIN), summary: "Federated discovery check (spec: admin)" } },
  },
  {
    path: "/api/keycloak-config",
    capability: "auth",
    methods: { GET: { access: pub, summary: "Where the identity provider is (spec: public)" } },
  },
  {
    path: "/api/mock-dsp/:participant/catalog/request",
    capability: "operator",
    methods: {
      GET: {
        access: { kind: "session-or-crawler" },
        summary: "Demonstration DSP catalogue (spec: session or crawler token)",
      },
      POST: { access: { kind: "session-or-crawler" }, summary: "Demonstration DSP catalogue request" },
    },
  },
  {
    path: "/api/auth/:rest*",
    capability: "auth",
    methods: {
      GET: { access: pub, summary: "Session and provider information for clients (spec: sign-in routes)" },
      POST: { access: pub, summary: "Sign-in flow endpoints (spec: sign-in routes)" },
    },
  },
];
