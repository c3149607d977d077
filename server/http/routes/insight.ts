import { anyUser, roles, ADMIN, HDAB, HOLDER, USER, TRUST } from "./access";
import type { RouteSpec } from "./types";

/** The routes of trust center, federated queries, questions, EEHRxF, analytics, overview and ODRL scope. */
export const insightRoutes: RouteSpec[] = [
  {
    path: "/api/trust-center",
    capability: "trust-center",
    methods: { GET: { access: roles(TRUST, ADMIN), summary: "Trust center view" } },
  },
  {
    path: "/api/federated",
    capability: "federated",
    methods: {
      GET: {
        access: roles(USER, HOLDER, HDAB, ADMIN, TRUST),
        summary: "Federated cohort summary (k-anonymous)",
      },
    },
  },
  {
    path: "/api/nlq",
    capability: "nlq",
    methods: {
      GET: { access: roles(USER, HOLDER, HDAB, ADMIN), summary: "Question templates" },
      POST: { access: roles(USER, HOLDER, HDAB, ADMIN), summary: "Ask a question" },
    },
  },
  {
    path: "/api/nlq/backend",
    capability: "nlq",
    methods: { GET: { access: anyUser, summary: "Which back end answers questions" } },
  },
  {
    path: "/api/eehrxf",
    capability: "eehrxf",
    methods: { GET: { access: anyUser, summary: "EEHRxF profile coverage" } },
  },
  {
    path: "/api/analytics",
    capability: "analytics",
    methods: { GET: { access: roles(USER, HOLDER, HDAB, ADMIN), summary: "OMOP dashboard" } },
  },
  {
    path: "/api/overview",
    capability: "overview",
    methods: { GET: { access: anyUser, summary: "Persona overview" } },
  },
  {
    path: "/api/odrl/scope",
    capability: "policies",
    methods: { GET: { access: anyUser, summary: "The caller's effective ODRL scope" } },
  },
];
