import { findPersona } from "../../server/auth/personas";
import { personaSessionUser, type SessionUser } from "../../server/auth/user";
import type { Dataspace } from "../../server/dataspace";
import { dataspaceContract } from "../../server/dataspace/contract";
import { dataspaceHandlers } from "../../server/dataspace/handlers";
import { parseJsonBody } from "../../server/http/body";
import { checkParams, parseBody, parseQuery } from "../../server/http/contract";
import { errorResponse } from "../../server/http/errors";
import type { HandlerContext } from "../../server/http/handler";
import type { Services } from "../../server/services";

/** A built-in persona as the session user a handler sees (as static mode and the OIDC callback build it). */
export function personaUser(username: string): SessionUser {
  return personaSessionUser(findPersona(username)!);
}

export interface DataspaceCall {
  query?: Record<string, string>;
  /** sent as JSON */
  body?: unknown;
  /** sent as it is, as application/json (for malformed bodies) */
  raw?: string;
  /** `:name` segments of the route key */
  params?: Record<string, string>;
  /** the persona calling (default admin) */
  as?: string;
  /** or a user that is no persona (a member of an organisation outside the built-in table) */
  user?: SessionUser;
}

/**
 * Calls one dataspace handler of the route table (`"GET /api/negotiations"`) with a real `Request`,
 * as the dispatcher would, against the dataspace `ds`; a thrown error becomes the error model's answer.
 */
export async function callDataspace(ds: Dataspace, key: string, opts: DataspaceCall = {}) {
  const [method, route] = key.split(" ");
  const url = new URL(
    `http://hub.test${route.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(opts.params?.[n] ?? n))}`,
  );
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
  const hasBody = opts.body !== undefined || opts.raw !== undefined;
  const request = new Request(url, {
    method,
    headers: hasBody ? { "content-type": "application/json" } : {},
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const ctx: Omit<HandlerContext<Services>, "input"> = {
    request,
    headers: request.headers,
    head: { method, url: request.url, headers: request.headers },
    url,
    query: url.searchParams,
    params: opts.params ?? {},
    user: opts.user ?? personaUser(opts.as ?? "admin"),
    services: { dataspace: ds } as unknown as Services,
  };
  const handler = dataspaceHandlers[key];
  if (!handler) throw new Error(`no handler for ${key}`);
  let res: Response;
  try {
    // the route's declaration first, as the dispatcher parses it (server/http/contract.ts)
    const contract = dataspaceContract[key];
    checkParams(contract, ctx.params);
    const body = opts.raw === undefined ? opts.body : opts.raw.trim() ? parseJsonBody(opts.raw) : undefined;
    const input = { query: parseQuery(contract, url.searchParams) ?? {}, body: parseBody(contract, body) };
    res = await handler({ ...ctx, input });
  } catch (e) {
    res = errorResponse(e);
  }
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the JSON freely
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any, url };
}
