import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { Writable } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import { documentResponse } from "../server/http/document-body";
import { RenderedDocument, renderKey, sharedRenderCache } from "../server/http/render-cache";

const ABORT_DELAY = 5_000;

/** documents rendered a moment ago, by URL and the loaders' data (docs/performance.md) */
const rendered = sharedRenderCache();

/** the whole document, rendered by React's stream renderer and read to its end (every Suspense boundary settled) */
function renderDocument(request: Request, remixContext: EntryContext): Promise<RenderedDocument> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    sink.on("finish", () => {
      clearTimeout(timer);
      resolve(new RenderedDocument(Buffer.concat(chunks).toString()));
    });
    const { pipe, abort } = renderToPipeableStream(
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />,
      {
        onAllReady: () => pipe(sink),
        // a render error rejects: Remix renders the error boundary's document instead
        onShellError: (e) => {
          clearTimeout(timer);
          reject(e);
        },
        onError: (e) => {
          if (!String(e).includes("aborted")) console.error(e);
        },
      },
    );
    const timer = setTimeout(abort, ABORT_DELAY);
  });
}

/**
 * Renders the whole document (the stream renderer, waited on to its end: bots and browsers get the
 * same answer) and answers it as one buffer with its Content-Length. Only the published Remix and
 * React APIs are used (docs/performance.md).
 *
 * A page answered 200 without errors whose URL and loader data equal those of a document rendered a
 * moment ago is not rendered again: its bytes (and their gzip, made once) come from
 * server/http/render-cache.ts. Its inline scripts are allowed by their hashes in its own
 * Content-Security-Policy, which replaces the edge's nonce policy (server/http/remix-answer.ts).
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const handler = remixContext.staticHandlerContext;
  const key = responseStatusCode === 200 && !handler.errors ? renderKey(request.url, handler) : null;
  const doc = await (key === null
    ? renderDocument(request, remixContext)
    : rendered.get(key, () => renderDocument(request, remixContext)));
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Content-Security-Policy", loadContext.contentSecurityPolicy(doc.scriptHashes));
  return documentResponse(doc.body, responseStatusCode, responseHeaders);
}
