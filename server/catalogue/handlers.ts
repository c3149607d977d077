import { json, noContent } from "../http/errors";
import { readJsonObject, type HandlerMap } from "../http/handler";
import type { CatalogueService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface CatalogueServices {
  catalogue: CatalogueService;
}

export const catalogueHandlers: HandlerMap<CatalogueServices> = {
  "GET /api/catalog": async ({ services }) => json(await services.catalogue.list()),
  "POST /api/catalog": async ({ services, request, user }) =>
    json(await services.catalogue.create(await readJsonObject(request), user!), 201),
  "DELETE /api/catalog": async ({ services, query, user }) => {
    await services.catalogue.remove(query.get("id"), user!);
    return noContent();
  },
};
