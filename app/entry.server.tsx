import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server";
import { holdDocumentBody } from "../server/http/document-body";
import { readHandoffBeforeRender } from "./handoff.server";
import { NonceContext } from "./nonce";

const ABORT_DELAY = 5_000;

/**
 * Renders the whole document in one synchronous pass and answers it as one buffer with its
 * Content-Length (docs/decisions/0033). No view defers data: every loader's data is there before the
 * render starts, and its encoded form (the single-fetch hand-off that `<RemixServer>` inlines) is read
 * to the end first, so nothing in the tree suspends and React's string renderer gives the same
 * document as its streaming one without the stream: no byte encoding per chunk, no re-render per
 * hand-off chunk. Bots and browsers get the same answer. The bytes are held on the Response too, for
 * the server to write as they are (server/http/document-body.ts).
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  await readHandoffBeforeRender(remixContext, ABORT_DELAY);
  // a render error throws here: Remix renders the error boundary's document instead
  const html = renderToString(
    <NonceContext.Provider value={nonce}>
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
    </NonceContext.Provider>,
  );
  const body = Buffer.from(`<!DOCTYPE html>${html}`);
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Content-Length", String(body.byteLength));
  return holdDocumentBody(new Response(body, { headers: responseHeaders, status: responseStatusCode }), body);
}
