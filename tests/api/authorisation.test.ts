import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSONAS } from "../../server/auth/personas";
import { ROUTES, type HttpMethod } from "../../server/http/route-table";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Walks the route table for every persona and for anonymous callers: a route that needs a
 * session answers 401 without one; a role the route does not admit gets 403; an admitted caller
 * never gets 401 or 403 from the guard (the handler may still answer 400/404 for the empty input).
 */
let server: TestServer;
const sessions = new Map<string, Signed>();

beforeAll(async () => {
  server = await startTestServer();
  for (const p of PERSONAS) sessions.set(p.username, await signIn(server.url, p.username));
});
afterAll(async () => server?.close());

const concrete = (path: string) =>
  path
    .replace(":rest*", "session")
    .replace(/:([A-Za-z]+)/g, (_, name: string) => (name === "participant" ? "lmc" : `probe-${name}`));

const cases = ROUTES.flatMap((r) =>
  (Object.entries(r.methods) as [HttpMethod, NonNullable<(typeof r.methods)[HttpMethod]>][]).map(
    ([method, spec]) => ({
      method,
      path: r.path,
      access: spec.access,
    }),
  ),
);

describe("authorisation matrix over the route table", () => {
  it("covers every route and method", () => {
    expect(cases.length).toBeGreaterThan(90);
  });

  it.each(cases)("$method $path", async ({ method, path, access }) => {
    const url = `${server.url}${concrete(path)}`;
    const init = (cookie?: string): RequestInit => ({
      method,
      redirect: "manual",
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }),
      },
      body: method === "GET" || method === "DELETE" ? undefined : "{}",
    });

    const anon = await fetch(url, init());
    expect(anon.headers.get("content-type")).toMatch(/application\/json/);
    if (access.kind === "session" || access.kind === "session-or-crawler") {
      expect(anon.status, "anonymous").toBe(401);
      expect((await anon.json()).error).toEqual(expect.any(String));
    } else if (access.kind === "public") {
      expect([401, 403]).not.toContain(anon.status);
    }

    if (access.kind !== "session") return;
    for (const persona of PERSONAS) {
      const res = await fetch(url, init(sessions.get(persona.username)!.cookie));
      const admitted = access.roles === "any" || access.roles.some((r) => persona.roles.includes(r));
      const body = (await res.json()) as { error?: string };
      if (admitted) {
        expect(
          res.status === 401 || (res.status === 403 && /role/i.test(body.error ?? "")),
          `${persona.username} admitted`,
        ).toBe(false);
      } else {
        expect(res.status, `${persona.username} refused`).toBe(403);
        expect(body.error).toEqual(expect.any(String));
      }
    }
  });
});
