import type { ServerResponse } from "node:http";

/**
 * The methods the server answers: what the route table, Remix and the identity provider use. Any
 * other method (TRACE, TRACK, PROPFIND, …) is refused at the edge with 405 before anything reads the
 * request: the fetch standard forbids TRACE and TRACK, and building a web `Request` of one threw, which
 * answered 500.
 */
export const SERVED_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);
const ALLOW = [...SERVED_METHODS].join(", ");

/** 405 for a method the server never answers: JSON under /api (the dispatcher's text), plain text elsewhere */
export function refuseMethod(res: ServerResponse, method: string, pathname: string, api: boolean): void {
  const body = api
    ? JSON.stringify({ error: `Method ${method} not allowed on ${pathname}` })
    : "Method Not Allowed";
  res.writeHead(405, {
    "Content-Type": api ? "application/json" : "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    Allow: ALLOW,
  });
  res.end(method === "HEAD" ? undefined : body);
}
