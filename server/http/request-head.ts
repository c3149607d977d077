import type { IncomingMessage } from "node:http";

/**
 * What the /api dispatcher reads of a request before the handler: method, URL and a few headers
 * (Origin, Sec-Fetch-Site, Referer, Cookie, Authorization, Content-Length). A `Request` is one. For
 * a GET or HEAD from the Node listener the dispatcher reads them straight from Node's parsed headers
 * (`nodeRequestHead`) and builds the web `Request` only if the handler asks for it: most read
 * handlers never do, and building one (with its `Headers` copy) costs more than the rest of a
 * cached answer.
 */
export interface RequestHead {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/** Node's headers seen through `get`: lower-cased names, the values as Node joined them. */
class NodeHeaders {
  constructor(private readonly raw: IncomingMessage["headers"]) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(", ") : v;
  }
}

export function nodeRequestHead(req: IncomingMessage, url: string): RequestHead {
  return { method: req.method ?? "GET", url, headers: new NodeHeaders(req.headers) };
}
