import { ApiError, badRequest } from "./errors";
import type { RequestHead } from "./request-head";
import { BODY_BYTES, bodyTooLarge, MAX_BODY_BYTES, TOO_LARGE, type Tagged } from "./limits";

/**
 * Request bodies at the /api edge: one size limit for every route, and the content types a route
 * accepts. The Node adapter (node-adapter.ts) reads at most MAX_BODY_BYTES + 1 bytes, marks a
 * Request whose body was cut off (`markTooLarge`) and closes that connection after the answer;
 * the dispatcher (api-handler.ts) answers such a request 413 before anything else reads it.
 * Decision record: docs/decisions/0007-bad-input-and-faults.md.
 */

/** How deeply a JSON body may nest objects and arrays. */
export const MAX_JSON_DEPTH = 32;

export const BODY_TOO_LARGE = bodyTooLarge();
export const JSON_REQUIRED = "Content-Type must be application/json";

/** True when the body is (or is declared) over the limit. */
export function isTooLarge(request: RequestHead): boolean {
  if ((request as Partial<Tagged>)[TOO_LARGE]) return true;
  return declaredLength(request) > MAX_BODY_BYTES;
}

function declaredLength(request: RequestHead): number {
  const raw = request.headers.get("content-length");
  if (raw === null || !/^\d+$/.test(raw.trim())) return 0;
  return Number(raw);
}

/** The number of body bytes: as read by the adapter, else as declared; undefined when unknown. */
function bodyBytes(request: Request): number | undefined {
  const read = (request as Tagged)[BODY_BYTES];
  if (read !== undefined) return read;
  if (request.headers.get("content-length") !== null) return declaredLength(request);
  return request.body === null ? 0 : undefined;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

export type BodyKind = "json" | "json-or-form";

const MULTIPART_TYPE = /^multipart\/form-data\s*(?:;|$)/i;
export const FORM_REQUIRED = "Content-Type must be application/x-www-form-urlencoded or multipart/form-data";

/** a page's post with a body its action cannot read as a form (server/app.ts answers 415 before it runs) */
export function isUnreadableForm(request: RequestHead): boolean {
  if (request.headers.get("transfer-encoding") === null && declaredLength(request) === 0) return false;
  const type = (request.headers.get("content-type") ?? "").trim();
  return !FORM_TYPE.test(type) && !MULTIPART_TYPE.test(type);
}

/**
 * 413 when the body is over the limit; 415 when a non-empty body is not of an accepted type
 * (JSON, or for the sign-in routes also a form); 400 when a JSON body does not parse, is not an
 * object, nests too deeply or holds a lone surrogate — on every route, also those whose handler
 * reads no body.
 * Bodies of GET and HEAD are ignored. The JSON object read, if any, is returned (the dispatcher parses
 * it with the route's declared body schema, server/http/contract.ts).
 */
export async function checkRequestBody(
  request: Request,
  kind: BodyKind = "json",
): Promise<Record<string, unknown> | undefined> {
  if (isTooLarge(request)) throw new ApiError(413, BODY_TOO_LARGE);
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  const bytes = bodyBytes(request);
  if (bytes === 0) return undefined;
  const type = (request.headers.get("content-type") ?? "").trim();
  if (JSON_TYPE.test(type)) {
    const text = await request.clone().text();
    if (text.trim() === "") return undefined;
    const value = parseJsonBody(text);
    // every /api body is a JSON object (no handler takes arrays or bare values)
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw badRequest(NOT_OBJECT);
    return value as Record<string, unknown>;
  }
  if (kind === "json-or-form" && FORM_TYPE.test(type)) return undefined;
  throw new ApiError(415, JSON_REQUIRED);
}

export const INVALID_JSON = "Request body must be valid JSON";
export const NOT_OBJECT = "Request body must be a JSON object";
export const TOO_DEEP = `Request body is nested too deeply (limit ${MAX_JSON_DEPTH} levels)`;
export const ILL_FORMED = "Request body must be well-formed Unicode (no lone surrogates)";

/** JSON.parse with the hub's limits: 400 on bad JSON, nesting over MAX_JSON_DEPTH, lone surrogates. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(INVALID_JSON);
  }
  const flaw = flawOf(value, MAX_JSON_DEPTH);
  if (flaw === "deep") throw badRequest(TOO_DEEP);
  if (flaw === "ill-formed") throw badRequest(ILL_FORMED);
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Objects and arrays nested deeper than `max`, or a string (value or key) with a lone surrogate,
 * which JSON allows as `\uD800` but which no URL, DID or store can carry. Iterative: no recursion
 * on client input.
 */
function flawOf(root: unknown, max: number): "deep" | "ill-formed" | undefined {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) return "ill-formed";
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth > max) return "deep";
    for (const [key, child] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return "ill-formed";
      if (typeof child === "string" || (typeof child === "object" && child !== null)) {
        stack.push([child, depth + 1]);
      }
    }
  }
  return undefined;
}
