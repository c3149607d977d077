import type { ServerResponse } from "node:http";
import { sendText } from "./node-adapter";

/**
 * What the edge answers before any handler: a method it never serves (405), a client over a rate limit (429).
 *
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
  if (api)
    sendText(res, 405, JSON.stringify({ error: `Method ${method} not allowed on ${pathname}` }), {
      "Content-Type": "application/json",
      Allow: ALLOW,
    });
  else sendText(res, 405, "Method Not Allowed", { Allow: ALLOW });
}

/**
 * 429 for a client over a rate limit (server/http/rate-limits.ts), with `Retry-After`: JSON under
 * /api, a short page elsewhere.
 */
export function refuseTooMany(res: ServerResponse, seconds: number, api: boolean): void {
  const text = `Too many requests: try again in ${seconds} s`;
  const body = api
    ? JSON.stringify({ error: text })
    : `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Too many requests · Health Dataspace Hub</title></head><body><main><h1>Too many requests</h1><p>${text}.</p></main></body></html>`;
  sendText(res, 429, body, {
    "Content-Type": api ? "application/json" : "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Retry-After": String(seconds),
  });
}
