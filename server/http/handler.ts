import type { RequestHead } from "./request-head";
import type { z } from "zod";
import type { SessionUser } from "../auth/user";
import { badRequest } from "./errors";
import type { ParsedInput } from "./contract";

/**
 * What every /api handler receives. Web standards only. `S` is the part of the service container
 * the handler uses: each capability names its own narrow services type, and the route wiring
 * beside the container (server/api-routes.ts) binds them all to the one `Services`. The kernel
 * knows no capability.
 */
export interface HandlerContext<S> {
  /** the web Request, built when first read (its Headers copied): read `headers` for a header alone */
  request: Request;
  /** the request's headers, read from the request as it came, without building a web Request */
  headers: RequestHead["headers"];
  /** the request as it came (method, URL text, headers): what a session lookup reads, without a web Request */
  head: RequestHead;
  url: URL;
  /**
   * The request URL's query parameters: what `url.searchParams` holds, parsed from the query text
   * alone (api-handler.ts, `queryOf`), so a handler that reads only its parameters does not parse the
   * whole URL. Read it only.
   */
  query: URLSearchParams;
  params: Record<string, string>;
  /**
   * The query and body parsed with the route's declaration (server/http/contract.ts): the schema's
   * output (defaults applied). `query` is empty and `body` the JSON object as sent when the route
   * declares none.
   */
  input: ParsedInput;
  /** the signed-in user; null on public routes and crawler calls */
  user: SessionUser | null;
  services: S;
}

export type Handler<S> = (ctx: HandlerContext<S>) => Promise<Response>;
export type HandlerMap<S> = Record<string, Handler<S>>;

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

/** Parses an optional positive integer query value with a default and a maximum. */
export function intParam(
  query: URLSearchParams,
  name: string,
  def: number,
  min: number,
  max: number,
): number {
  const raw = query.get(name);
  if (raw === null || raw === "") return def;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`${name} must be an integer`);
  const n = Number(raw);
  if (n < min || n > max) throw badRequest(`${name} must be between ${min} and ${max}`);
  return n;
}
