import { pub, anyUser, roles, ADMIN, HOLDER, staff } from "./access";
import { routesOf } from "./build";
import type { RouteSpec } from "./types";

const health = routesOf("health");
const openapi = routesOf("openapi");
const catalogue = routesOf("catalogue");
const graph = routesOf("graph");

/** The routes of health, the catalogue and the graph. */
export const coreRoutes: RouteSpec[] = [
  health("/api/health", { GET: [pub, "Health probe (spec)"] }),
  openapi("/api/openapi.json", { GET: [pub, "This API as an OpenAPI 3.1 document (design: public)"] }),
  catalogue(
    "/api/catalog",
    {
      GET: [anyUser, "List HealthDCAT-AP datasets"],
      POST: [roles(HOLDER, ADMIN), "Publish a dataset (spec: DATA_HOLDER or CONNECTOR_ADMIN)"],
      DELETE: [roles(HOLDER, ADMIN), "Withdraw a dataset"],
    },
    // a recordCount is withheld from callers bound by k, not from its holder (decision 0093)
    { keep: { caller: "organisation", versions: ["graph"] } },
  ),
  // not kept at the route: each look at a patient's identified record is audited, repeats counted, and
  // answered once on record (decision 0044); the service keeps the answers per graph version and viewer
  graph("/api/graph", { GET: [staff, "Graph sample by layer"] }),
  graph("/api/graph/expand", { GET: [staff, "Neighbourhood of a node"] }),
  graph("/api/graph/node", { GET: [staff, "A node with its relationships"] }),
  graph(
    "/api/graph/validate",
    { GET: [staff, "Schema constraints and counts"] },
    {
      keep: { caller: "everyone", versions: ["graph"] },
    },
  ),
];
