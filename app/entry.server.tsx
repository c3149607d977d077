import { Writable } from "node:stream";
import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { holdDocumentBody } from "../server/http/document-body";
import { NonceContext } from "./nonce";

const ABORT_DELAY = 5_000;

/**
 * Renders the whole document, then answers it as one buffer with its Content-Length. No view defers
 * data (every loader's data is there before the render starts), so streaming the shell first gained
 * nothing, and it cost a web stream with one chunk, one write and one flush per React chunk on the way
 * out (docs/decisions/0024-speed-persona-pages.md). Bots and browsers get the same answer. The bytes are
 * held on the Response too, for the server to write as they are (server/http/document-body.ts).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    // abort is set by the render below; the timer fires after 5 s at the earliest
    const timer = setTimeout(() => abort(), ABORT_DELAY);
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
        done();
      },
      final(done) {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        responseHeaders.set("Content-Type", "text/html; charset=utf-8");
        responseHeaders.set("Content-Length", String(body.byteLength));
        resolve(
          holdDocumentBody(
            new Response(body, { headers: responseHeaders, status: responseStatusCode }),
            body,
          ),
        );
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          pipe(sink);
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
  });
}
