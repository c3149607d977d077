import { pub, anyUser, roles, ADMIN, HOLDER, staff } from "./access";
import type { RouteSpec } from "./types";

/** The routes of health, the catalogue and the graph. */
export const coreRoutes: RouteSpec[] = [
  {
    path: "/api/health",
    capability: "health",
    methods: { GET: { access: pub, summary: "Health probe (spec)" } },
  },
  {
    path: "/api/openapi.json",
    capability: "openapi",
    methods: { GET: { access: pub, summary: "This API as an OpenAPI 3.1 document (design: public)" } },
  },
  {
    path: "/api/catalog",
    capability: "catalogue",
    methods: {
      GET: { access: anyUser, summary: "List HealthDCAT-AP datasets" },
      POST: {
        access: roles(HOLDER, ADMIN),
        summary: "Publish a dataset (spec: DATA_HOLDER or CONNECTOR_ADMIN)",
      },
      DELETE: { access: roles(HOLDER, ADMIN), summary: "Withdraw a dataset" },
    },
  },
  {
    path: "/api/graph",
    capability: "graph",
    methods: { GET: { access: staff, summary: "Graph sample by layer" } },
  },
  {
    path: "/api/graph/expand",
    capability: "graph",
    methods: { GET: { access: staff, summary: "Neighbourhood of a node" } },
  },
  {
    path: "/api/graph/node",
    capability: "graph",
    methods: { GET: { access: staff, summary: "A node with its relationships" } },
  },
  {
    path: "/api/graph/validate",
    capability: "graph",
    methods: { GET: { access: staff, summary: "Schema constraints and counts" } },
  },
];
