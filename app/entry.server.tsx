import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server";
import { documentResponse } from "../server/http/document-body";
import { noncePlaceholder, RenderedDocument, sharedRenderCache } from "../server/http/render-cache";
import { readHandoffBeforeRender } from "./handoff.server";
import { NonceContext } from "./nonce";

const ABORT_DELAY = 5_000;

/** documents rendered a moment ago, by status, URL and the loaders' encoded data (decision 0035) */
const rendered = sharedRenderCache();
const NONCE_SLOT = noncePlaceholder();

/**
 * Renders the whole document in one synchronous pass and answers it as one buffer with its
 * Content-Length (docs/decisions/0033). No view defers data: every loader's data is there before the
 * render starts, and its encoded form (the single-fetch hand-off that `<RemixServer>` inlines) is read
 * to the end first, so nothing in the tree suspends and React's string renderer gives the same
 * document as its streaming one without the stream: no byte encoding per chunk, no re-render per
 * hand-off chunk. Bots and browsers get the same answer. The bytes are held on the Response, for
 * the server to write as they are (server/http/document-body.ts); its web stream is made only for a
 * reader of `body` (the express path), not with every page (decision 0038).
 *
 * A page answered 200 without errors whose status, URL and encoded data equal those of a document
 * rendered a moment ago is not rendered again: its text comes from server/http/render-cache.ts,
 * with this answer's nonce put in (decision 0035).
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const handoff = await readHandoffBeforeRender(remixContext, ABORT_DELAY);
  // a render error throws here: Remix renders the error boundary's document instead
  const render = () =>
    new RenderedDocument(
      `<!DOCTYPE html>${renderToString(
        <NonceContext.Provider value={NONCE_SLOT}>
          <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={NONCE_SLOT} />
        </NonceContext.Provider>,
      )}`,
      NONCE_SLOT,
    );
  const cacheable =
    responseStatusCode === 200 && handoff !== null && !remixContext.staticHandlerContext.errors;
  const doc = cacheable ? rendered.get(`${request.url}\u0000${handoff}`, render) : render();
  const body = doc.withNonce(loadContext.cspNonce);
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Content-Length", String(body.byteLength));
  return documentResponse(body, responseStatusCode, responseHeaders);
}
