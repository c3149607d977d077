import { jsonBuffer } from "../http/errors";
import type { HandlerMap } from "../http/handler";
import { EncodedBody } from "../http/node-adapter";
import { ROUTES } from "../http/route-table";
import { buildOpenApiDocument } from "./document";
import { CONTRACTS } from "./contracts";
import examples from "./examples.json" with { type: "json" };

let body: EncodedBody | undefined;

/**
 * The document's bytes: built and encoded once (it depends only on the route table, the declarations and the examples,
 * both fixed for the life of the process), its gzip made once on first demand, instead of
 * stringifying 119 KiB on every request.
 */
export function openApiBody(): EncodedBody {
  body ??= EncodedBody.json(buildOpenApiDocument(ROUTES, CONTRACTS, examples));
  return body;
}

/** GET /api/openapi.json (public): the document, built once from the route table and the schemas. */
export const openApiHandlers: HandlerMap<unknown> = {
  "GET /api/openapi.json": async () => jsonBuffer(openApiBody()),
};
