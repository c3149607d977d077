import { type EncodedBody, heldResponse } from "./node-adapter";

/**
 * The rendered document's bytes, held on the `Response` that app/entry.server.tsx answers with, so the
 * page path of server/app.ts writes them to the socket as they are (or their gzip, made once per
 * rendered document) instead of reading them back through the Response's web stream (docs/decisions/history/0029).
 * A registered symbol, because the Remix build and the server are two bundles, each with its own copy
 * of this module.
 */
const DOCUMENT_BODY = Symbol.for("health-dataspace-hub.document-body");

/**
 * A rendered document's Response with its bytes held: as they are for the page path, and as a web
 * stream made only if someone reads `body` (a test that compares with Remix's own handler does;
 * decision 0038).
 */
export function documentResponse(body: EncodedBody, status: number, headers: Headers): Response {
  headers.set("Content-Length", String(body.byteLength));
  const response = heldResponse(body, { status, headers });
  Object.defineProperty(response, DOCUMENT_BODY, { value: body });
  return response;
}

/**
 * The body held by documentResponse, or null (another response: a redirect, HEAD, an error page). Told
 * by its shape, not its class: the Remix build's EncodedBody is another bundle's copy of the class.
 */
export function heldDocumentBody(response: Response): EncodedBody | null {
  const held = (response as unknown as Record<symbol, EncodedBody | undefined>)[DOCUMENT_BODY];
  return held && Buffer.isBuffer(held.raw) && typeof held.gzip === "function" ? held : null;
}
