import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseFor, dropDatabase, testDatabaseUrl } from "../support/postgres";
import { startTestServer, type TestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * Two hub instances on one PostgreSQL database (issue 15): a user signed in on instance A uses the
 * session on instance B, and a logout on B ends it on A. Runs when DATABASE_URL is set.
 */
describe.skipIf(!testDatabaseUrl())("sign-in across two instances on PostgreSQL", () => {
  const admin = testDatabaseUrl() ?? "";
  let url: string;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    url = await databaseFor(admin, `auth-instances-${randomUUID()}`);
    a = await startTestServer({ DATABASE_URL: url });
    b = await startTestServer({ DATABASE_URL: url });
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (url) await dropDatabase(admin, url);
  });

  it("serves on B the session signed in on A, and a logout on B ends it on A", async () => {
    const onA = await signIn(a.url, "clinic");
    const onB = (path: string, init: RequestInit = {}) =>
      fetch(`${b.url}${path}`, { ...init, redirect: "manual", headers: { cookie: onA.cookie } });

    const session = (await (await onB("/api/auth/session")).json()) as { user?: { username: string } };
    expect(session.user?.username).toBe("clinic");
    expect((await onB("/api/catalog")).status).toBe(200);

    const out = await onB("/auth/logout", { method: "POST" });
    expect(out.status).toBe(302);
    expect(await (await onA.api("/api/auth/session")).json()).toEqual({});
    expect((await onA.api("/api/catalog")).status).toBe(401);
  });
});
