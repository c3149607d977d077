import { afterAll, beforeAll, expect } from "vitest";
import type { HttpMethod } from "../../server/http/route-table";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/** Helpers and the harness shared by the test files split from access-body.test.ts. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are arbitrary JSON, checked by the assertions
export type Json = any;

export function expect409(r: { status: number; body: Json }, currentState: string) {
  expect(r.status).toBe(409);
  expect(r.body).toMatchObject({
    error: expect.any(String),
    currentState,
    allowedNextStates: expect.any(Array),
  });
}

/**
 * The per-file state of the split access-body tests: the real server (started and stopped by the
 * harness's own beforeAll/afterAll), the personas signed in through the real OpenID flow, and
 * `call`/`get`/`post` as a persona (or anonymous, null) that return status, parsed JSON, headers
 * and text.
 */
export function accessBodyHarness(
  personas: readonly string[] = ["regulator", "researcher", "admin", "clinic", "patient1", "trustcenter"],
) {
  let server: TestServer;
  const s = new Map<string, Signed>();

  beforeAll(async () => {
    server = await startTestServer();
    for (const u of personas) s.set(u, await signIn(server.url, u));
  });

  afterAll(async () => server?.close());

  async function call(
    user: string | null,
    method: HttpMethod,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json; headers: Headers; text: string }> {
    const init: RequestInit = {
      method,
      redirect: "manual",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    const res = user ? await s.get(user)!.api(path, init) : await fetch(`${server.url}${path}`, init);
    const text = await res.text();
    let parsed: Json = undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, headers: res.headers, text };
  }

  return {
    /** the signed-in personas */
    s,
    call,
    get: (user: string | null, path: string) => call(user, "GET", path),
    post: (user: string | null, path: string, body: unknown) => call(user, "POST", path, body),
  };
}
