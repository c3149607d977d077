import { afterAll, beforeAll } from "vitest";
import { PERSONAS } from "../../server/auth/personas";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/** Helpers shared by the test files split from governance.test.ts. */

export type Json = Record<string, unknown> & { error?: string };

export const body = async (res: Response) => (await res.json()) as Json;

export const CRAWLER_TOKEN = "crawler-token-for-tests-0123456789";

/**
 * The real server with the crawler token set and every persona signed in, started before the file's
 * tests and closed after them; `api`/`send` speak as a persona.
 */
export function governanceHarness() {
  const as = new Map<string, Signed>();
  const h = {
    server: undefined as unknown as TestServer,
    as,
    api: (user: string, p: string, init: RequestInit = {}) => as.get(user)!.api(p, init),
    send: (user: string, method: string, p: string, body?: unknown) =>
      h.api(user, p, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
  beforeAll(async () => {
    h.server = await startTestServer({ CRAWLER_TOKEN });
    for (const p of PERSONAS) as.set(p.username, await signIn(h.server.url, p.username));
  });
  afterAll(async () => h.server?.close());
  return h;
}
