import { json } from "../http/errors";
import { parsedQuery, queryInt } from "../http/contract";
import type { HandlerMap } from "../http/handler";
import { expandQuery, graphQuery, nodeQuery } from "./contract";
import { viewerOf } from "../privacy";
import { EXPAND_DEPTH_DEFAULT, GRAPH_LIMIT_DEFAULT, readerOf } from "./service";
import type { GraphService } from "./service";
import type { SessionUser } from "../auth/user";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface GraphServices {
  graphQueries: GraphService;
  /** a patient's node shown with its identity is a look at that person, audited (issue 34) */
  patients: { noteNodeRead(id: string | null, user: SessionUser | null): Promise<void> };
}

/** The query of each route is parsed by the dispatcher with its declaration (contract.ts): read `ctx.input`. */
export const graphHandlers: HandlerMap<GraphServices> = {
  "GET /api/graph": async (ctx) => {
    const q = parsedQuery(ctx, graphQuery);
    return json(
      await ctx.services.graphQueries.graph(
        { layer: q.layer ?? null, persona: q.persona ?? null, limit: queryInt(q.limit, GRAPH_LIMIT_DEFAULT) },
        readerOf(ctx.user),
      ),
    );
  },
  "GET /api/graph/expand": async (ctx) => {
    const q = parsedQuery(ctx, expandQuery);
    return json(
      await ctx.services.graphQueries.expand(
        q.id,
        queryInt(q.depth, EXPAND_DEPTH_DEFAULT),
        readerOf(ctx.user),
      ),
    );
  },
  "GET /api/graph/node": async (ctx) => {
    const { id } = parsedQuery(ctx, nodeQuery);
    const node = await ctx.services.graphQueries.node(id, viewerOf(ctx.user));
    await ctx.services.patients.noteNodeRead(id, ctx.user);
    return json(node);
  },
  "GET /api/graph/validate": async ({ services }) => json(await services.graphQueries.validate()),
};
