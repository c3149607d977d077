import { json, noContent } from "../http/errors";
import { parsedBody, parsedQuery } from "../http/contract";
import type { HandlerMap } from "../http/handler";
import { publishBody, withdrawQuery } from "./contract";
import type { CatalogueService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface CatalogueServices {
  catalogue: CatalogueService;
}

/** Query and body are parsed by the dispatcher with each route's declaration (contract.ts): read `ctx.input`. */
export const catalogueHandlers: HandlerMap<CatalogueServices> = {
  "GET /api/catalog": async ({ services, user }) => json(await services.catalogue.list(user)),
  "POST /api/catalog": async (ctx) =>
    json(await ctx.services.catalogue.create(parsedBody(ctx, publishBody), ctx.user!), 201),
  "DELETE /api/catalog": async (ctx) => {
    await ctx.services.catalogue.remove(parsedQuery(ctx, withdrawQuery).id, ctx.user!);
    return noContent();
  },
};
