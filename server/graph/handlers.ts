import { json } from "../http/errors";
import { parsedQuery, queryInt } from "../http/contract";
import type { HandlerMap } from "../http/handler";
import { expandQuery, graphQuery, nodeQuery } from "./contract";
import { EXPAND_DEPTH_DEFAULT, GRAPH_LIMIT_DEFAULT, readerOf, type GraphService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface GraphServices {
  graphQueries: GraphService;
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
    return json(await ctx.services.graphQueries.node(id, readerOf(ctx.user)));
  },
  "GET /api/graph/validate": async ({ services }) => json(await services.graphQueries.validate()),
};
