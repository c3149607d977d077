import { json } from "../http/errors";
import { intParam, type HandlerMap } from "../http/handler";
import { viewerOf } from "../privacy";
import { EXPAND_DEPTH_DEFAULT, EXPAND_DEPTH_MAX, GRAPH_LIMIT_DEFAULT, GRAPH_LIMIT_MAX } from "./service";
import type { GraphService } from "./service";
import type { SessionUser } from "../auth/user";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface GraphServices {
  graphQueries: GraphService;
  /** a patient's node shown with its identity is a look at that person, audited (issue 34) */
  patients: { noteNodeRead(id: string | null, user: SessionUser | null): Promise<void> };
}

export const graphHandlers: HandlerMap<GraphServices> = {
  "GET /api/graph": async ({ services, query, user }) =>
    json(
      await services.graphQueries.graph(
        {
          layer: query.get("layer"),
          persona: query.get("persona"),
          limit: intParam(query, "limit", GRAPH_LIMIT_DEFAULT, 1, GRAPH_LIMIT_MAX),
        },
        viewerOf(user),
      ),
    ),
  "GET /api/graph/expand": async ({ services, query, user }) =>
    json(
      await services.graphQueries.expand(
        query.get("id"),
        intParam(query, "depth", EXPAND_DEPTH_DEFAULT, 1, EXPAND_DEPTH_MAX),
        viewerOf(user),
      ),
    ),
  "GET /api/graph/node": async ({ services, query, user }) => {
    const node = await services.graphQueries.node(query.get("id"), viewerOf(user));
    await services.patients.noteNodeRead(query.get("id"), user);
    return json(node);
  },
  "GET /api/graph/validate": async ({ services }) => json(await services.graphQueries.validate()),
};
