import { cspFor } from "../../server/http/security-headers";
import type { AppLoadContext } from "@remix-run/node";
import { signIn } from "./signin";
import { startTestServer, type TestServer } from "./server";

/**
 * Loader and action tests (Epic Stack style): the real server (SQLite, services, the embedded
 * identity provider) is started on 127.0.0.1, personas sign in through the real OpenID flow, and a
 * route's loader or action is then called directly with a `Request` carrying that session's cookie
 * and a load context holding the server's own services. Needs `node scripts/build.mjs` first.
 */
export interface RouteHarness {
  server: TestServer;
  context: AppLoadContext;
  /** a Request to this path as the persona (signed in once, then reused) or anonymous (null) */
  request: (persona: string | null, path: string, init?: RequestInit) => Promise<Request>;
  /** a POST of form fields as the persona */
  post: (persona: string, path: string, fields: Record<string, string>) => Promise<Request>;
  close: () => Promise<void>;
}

export async function startRouteHarness(env: Record<string, string> = {}): Promise<RouteHarness> {
  const server = await startTestServer(env);
  const cookies = new Map<string, string>();
  const cookieOf = async (persona: string) => {
    let c = cookies.get(persona);
    if (!c) {
      c = (await signIn(server.url, persona)).cookie;
      cookies.set(persona, c);
    }
    return c;
  };
  const request = async (persona: string | null, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (persona) headers.set("cookie", await cookieOf(persona));
    return new Request(new URL(path, server.url), { ...init, headers });
  };
  return {
    server,
    context: { services: server.services, contentSecurityPolicy: (hashes) => cspFor(hashes) },
    request,
    post: (persona, path, fields) =>
      request(persona, path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      }),
    close: () => server.close(),
  };
}

/** what a loader or action threw (a Response for redirects and refusals) */
export async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to throw");
}
