import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { SESSION_COOKIE } from "../../server/auth/sessions";
import { CookieJar, signIn } from "../support/signin";

/**
 * The session cache (server/auth/sessions.ts, decision 0023): a signed-in caller's requests are
 * answered from the cached session, and a sign-out ends the session at once in this process, for
 * every route and for requests already queued behind it.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "20" });
}, 120_000);
afterAll(async () => server?.close());

describe("the session cache", () => {
  it("answers 401 at once after a sign-out, however warm the cache was", async () => {
    const s = await signIn(server.url, "lmc");
    const other = await signIn(server.url, "clinic");
    // warm: many concurrent reads of the same cookie
    const warm = await Promise.all(Array.from({ length: 20 }, () => s.api("/api/catalog")));
    expect(warm.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(
      ((await (await s.api("/api/auth/session")).json()) as { user?: { username: string } }).user?.username,
    ).toBe("lmc");

    const out = await s.api("/auth/logout", { method: "POST" });
    expect(out.status).toBe(302);

    const after = await Promise.all([s.api("/api/catalog"), s.api("/api/tasks"), s.api("/api/participants")]);
    expect(after.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(await after[0].json()).toEqual({ error: "Authentication required" });
    expect(await (await s.api("/api/auth/session")).json()).toEqual({});
    // another user's session is untouched
    expect((await other.api("/api/catalog")).status).toBe(200);
  });

  it("ends the session a browser holds when it signs in again, on the server too", async () => {
    const first = await signIn(server.url, "lmc");
    const token = first.jar.get(SESSION_COOKIE)!;
    expect((await first.api("/api/catalog")).status).toBe(200);
    // the same browser (it still sends the first session's cookie) signs in as someone else
    const browser = new CookieJar();
    browser.set(SESSION_COOKIE, token);
    const second = await signIn(server.url, "clinic", "clinic", "/", browser);
    expect(second.jar.get(SESSION_COOKIE)).not.toBe(token);
    expect((await second.api("/api/catalog")).status).toBe(200);
    // the first session's cookie, kept or stolen, no longer works
    expect((await first.api("/api/catalog")).status).toBe(401);
  });

  it("keeps the role guard exact for a cached session (403 with the spec's text)", async () => {
    const patient = await signIn(server.url, "patient1");
    const first = await patient.api("/api/admin/tenants");
    const second = await patient.api("/api/admin/tenants");
    expect([first.status, second.status]).toEqual([403, 403]);
    expect(await second.json()).toEqual({ error: "Forbidden: your role does not allow this" });
  });
});
