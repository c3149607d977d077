import { json } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import { deepFrozen } from "../http/kept";
import { ROUTES } from "../http/route-table";
import { buildOpenApiDocument } from "./document";
import { CONTRACTS } from "./contracts";
import examples from "./examples.json" with { type: "json" };

let kept: ReturnType<typeof buildOpenApiDocument> | undefined;

/**
 * The document, built once and kept (it depends only on the route table, the declarations and the
 * examples, fixed for the life of the process): `json()` sends it from bytes encoded once, its gzip
 * made once.
 */
export function openApiDocument() {
  kept ??= deepFrozen(buildOpenApiDocument(ROUTES, CONTRACTS, examples));
  return kept;
}

/** GET /api/openapi.json (public): the document, built once from the route table and the schemas. */
export const openApiHandlers: HandlerMap<unknown> = {
  "GET /api/openapi.json": async () => json(openApiDocument()),
};
