import { findPersona } from "../../server/auth/personas";
import type { SessionUser } from "../../server/auth/user";
import { type Dataspace } from "../../server/dataspace";
import { dataspaceHandlers } from "../../server/dataspace/handlers";
import { errorResponse } from "../../server/http/errors";
import type { HandlerContext } from "../../server/http/handler";
import type { Services } from "../../server/services";

/** Helpers shared by the test files split from dataspace-rules.test.ts. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
export type JsonBody = any;

/**
 * The rules of spec section 4 (Negotiations, Transfers, Assets, Participants) checked black-box
 * against an upstream double that records what the hub sends: every 400 text, the counter-party
 * address normalisation, the exact ContractRequest / TransferRequest / Asset bodies, the
 * demonstration transfer rule, merge and de-duplication, display-name resolution, the slug rule,
 * and the client-credentials token.
 */

export const CTX = "https://w3id.org/edc/connector/management/v0.0.1";

export const ALPHA_DID = "did:web:alpha-klinik.de:participant";

export const MGMT = "/mgmt/v4alpha/participants";

export function user(username: string): SessionUser {
  const p = findPersona(username)!;
  return {
    sub: username,
    username,
    name: p.name,
    roles: p.roles,
    organisation: p.organisation,
    participantDid: p.participantDid,
  };
}

export async function call(
  ds: Dataspace,
  key: string,
  opts: {
    query?: Record<string, string>;
    body?: unknown;
    raw?: string;
    params?: Record<string, string>;
    as?: string;
  } = {},
) {
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
  const ctx: HandlerContext<Services> = {
    request,
    url,
    params: opts.params ?? {},
    user: user(opts.as ?? "admin"),
    services: { dataspace: ds } as unknown as Services,
  };
  let res: Response;
  try {
    res = await dataspaceHandlers[key](ctx);
  } catch (e) {
    res = errorResponse(e);
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
