import type { z } from "zod";
import type { SessionUser } from "../auth/user";
import type { Services } from "../services";
import { BODY_TOO_LARGE, isTooLarge, MAX_BODY_BYTES } from "./body";
import { badRequest, ApiError } from "./errors";

/** What every /api handler receives. Web standards only. */
export interface HandlerContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  /** the signed-in user; null on public routes and crawler calls */
  user: SessionUser | null;
  services: Services;
}

export type Handler = (ctx: HandlerContext) => Promise<Response>;
export type HandlerMap = Record<string, Handler>;

export { MAX_BODY_BYTES } from "./body";

/** How deeply a JSON body may nest objects and arrays. */
export const MAX_JSON_DEPTH = 32;

/**
 * Reads a JSON object body; 400 on bad JSON, a non-object or nesting deeper than MAX_JSON_DEPTH,
 * 413 when too large. (The dispatcher has already answered 413/415 for size and content type.)
 */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  if (isTooLarge(request)) throw new ApiError(413, BODY_TOO_LARGE);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new ApiError(413, BODY_TOO_LARGE);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("Request body must be valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("Request body must be a JSON object");
  }
  const flaw = flawOf(value, MAX_JSON_DEPTH);
  if (flaw === "deep") throw badRequest(`Request body is nested too deeply (limit ${MAX_JSON_DEPTH} levels)`);
  if (flaw === "ill-formed")
    throw badRequest("Request body must be well-formed Unicode (no lone surrogates)");
  return value as Record<string, unknown>;
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

/** Parses with a zod schema; on failure a 400 whose error is `message` (the spec's text) or zod's first issue. */
export function parseOr400<S extends z.ZodType>(schema: S, input: unknown, message?: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw badRequest(message ?? `${where}${issue?.message ?? "invalid input"}`);
}

/** A non-empty string field, or undefined. Treats "" and whitespace as missing. */
export function presentString(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

export function queryObject(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams.entries());
}

/** Parses an optional positive integer query value with a default and a maximum. */
export function intParam(url: URL, name: string, def: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return def;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`${name} must be an integer`);
  const n = Number(raw);
  if (n < min || n > max) throw badRequest(`${name} must be between ${min} and ${max}`);
  return n;
}
