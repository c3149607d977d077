import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { Writable } from "node:stream";
import type { ReactElement } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { documentResponse } from "../server/http/document-body";
import { RenderedDocument, renderKey, sharedRenderCache } from "../server/http/render-cache";

const ABORT_DELAY = 5_000;

/** documents rendered a moment ago, by URL and the loaders' data (docs/performance.md) */
const rendered = sharedRenderCache();

/**
 * The whole HTML of `node`, by React's stream renderer read to its end (every Suspense boundary
 * settled). React 18.3's stream writer sends its whole 2 KB buffer when a multi-byte character does
 * not fit the buffer's end, the unwritten bytes as NULs (facebook/react#31134): they go, as no NUL
 * is HTML (the browser drops it in text and an inline script's hash would not match).
 */
export function renderWhole(node: ReactElement): Promise<string> {
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
      resolve(Buffer.concat(chunks).toString().replaceAll("\0", ""));
    });
    const { pipe, abort } = renderToPipeableStream(node, {
      onAllReady: () => pipe(sink),
      // a render error rejects: Remix renders the error boundary's document instead
      onShellError: (e) => {
        clearTimeout(timer);
        reject(e);
      },
      onError: (e) => {
        if (!String(e).includes("aborted")) console.error(e);
      },
    });
    const timer = setTimeout(abort, ABORT_DELAY);
  });
}

const renderDocument = async (request: Request, remixContext: EntryContext) =>
  new RenderedDocument(
    await renderWhole(<RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} />),
  );

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
