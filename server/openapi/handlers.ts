import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import { ROUTES } from "../http/route-table";
import { buildOpenApiDocument } from "./document";
import { ROUTE_SCHEMAS } from "./schemas";

let document: Record<string, unknown> | undefined;

/** GET /api/openapi.json (public): the document, built once from the route table and the schemas. */
export const openApiHandlers: HandlerMap<unknown> = {
  "GET /api/openapi.json": async () => json((document ??= buildOpenApiDocument(ROUTES, ROUTE_SCHEMAS))),
};
