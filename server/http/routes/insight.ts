import { anyUser, roles, ADMIN, HDAB, HOLDER, USER, TRUST } from "./access";
import { routesOf } from "./build";
import type { RouteSpec } from "./types";

const trustCenter = routesOf("trust-center");
const federated = routesOf("federated");
const nlq = routesOf("nlq");
const eehrxf = routesOf("eehrxf");
const analytics = routesOf("analytics");
const overview = routesOf("overview");
const policies = routesOf("policies");

/** The routes of trust center, federated queries, questions, EEHRxF, analytics, overview and ODRL scope. */
export const insightRoutes: RouteSpec[] = [
  trustCenter("/api/trust-center", { GET: [roles(TRUST, ADMIN), "Trust center view"] }),
  federated("/api/federated", {
    GET: [roles(USER, HOLDER, HDAB, ADMIN, TRUST), "Federated cohort summary (k-anonymous)"],
  }),
  nlq(
    "/api/nlq",
    {
      GET: [roles(USER, HOLDER, HDAB, ADMIN), "Question templates"],
      POST: [roles(USER, HOLDER, HDAB, ADMIN), "Ask a question"],
    },
    // the templates never change while the server runs
    { keep: { caller: "everyone", versions: [] } },
  ),
  nlq("/api/nlq/backend", { GET: [anyUser, "Which back end answers questions"] }),
  eehrxf("/api/eehrxf", { GET: [anyUser, "EEHRxF profile coverage"] }),
  analytics("/api/analytics", { GET: [roles(USER, HOLDER, HDAB, ADMIN), "OMOP dashboard"] }),
  overview("/api/overview", { GET: [anyUser, "Persona overview"] }),
  policies("/api/odrl/scope", { GET: [anyUser, "The caller's effective ODRL scope"] }),
];
