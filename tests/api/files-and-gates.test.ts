import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { rawRequest } from "../support/raw-request";
import { signIn } from "../support/signin";

/**
 * What the server answers itself, before Remix, on Node's own request and response (server/app.ts,
 * server/http/static-files.ts, docs/decisions/0041): the browser build under /build, the favicon, the
 * identity provider under /idp, the refusal of cross-site form posts and of page bodies over the limit.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "20" });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** a request sent as written (tests/support/raw-request.ts) */
const raw = (target: string, opts: Parameters<typeof rawRequest>[2] = {}) =>
  rawRequest(server.url, target, opts);

const clientDir = path.resolve(process.env.HUB_BUILD_DIR ?? "build", "client");
const entry = readdirSync(clientDir).find((f) => f.startsWith("entry.client-") && f.endsWith(".js"))!;

describe("files", () => {
  it("serves the browser build for a year, with its security headers, HEAD and revalidation", async () => {
    const res = await fetch(`${server.url}/build/${entry}`);
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    expect(body.length).toBeGreaterThan(0);

    const head = await fetch(`${server.url}/build/${entry}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");

    // (with node:http: fetch adds Cache-Control: no-cache to a conditional request, which forbids a 304)
    const again = await raw(`/build/${entry}`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  it("answers 404 in plain text for a file that is not there, and never a file outside the build", async () => {
    const missing = await fetch(`${server.url}/build/no-such-file.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(missing.headers.get("cache-control")).toBeNull();
    expect(await missing.text()).toBe("Not Found");

    for (const p of [
      "/build/../remix/index.js",
      "/build/..%2fremix%2findex.js",
      "/build/%2e%2e/remix/index.js",
    ]) {
      const res = await raw(p);
      expect([403, 404], p).toContain(res.status);
      expect(res.text, p).not.toMatch(/import|export/);
    }
  });

  it("serves the favicon for an hour", async () => {
    const res = await fetch(`${server.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});

describe("the identity provider under /idp", () => {
  it("answers its discovery with its issuer, and only below /idp", async () => {
    const res = await fetch(`${server.url}/idp/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { issuer: string; authorization_endpoint: string };
    expect(doc.issuer).toBe(`${server.url}/idp`);
    expect(doc.authorization_endpoint.startsWith(`${server.url}/idp/`)).toBe(true);
    // a path that merely starts with the same letters is a page like any other (Remix's 404)
    const other = await fetch(`${server.url}/idpx/.well-known/openid-configuration`, {
      headers: { accept: "text/html" },
    });
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });
});

describe("gates before Remix", () => {
  it("refuses a form post from a foreign origin and changes nothing", async () => {
    const { cookie } = await signIn(server.url, "admin");
    const res = await fetch(`${server.url}/auth/logout`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie,
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "x=1",
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("Cross-origin request refused");
    // still signed in
    const session = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
    expect(((await session.json()) as { user?: { username: string } }).user?.username).toBe("admin");
  });

  it("refuses a page body over 1 MB with 413 in the error model's JSON, closes the connection and changes nothing", async () => {
    const { cookie } = await signIn(server.url, "admin");
    const body = Buffer.alloc(1_100_000, "a");
    // a page's action, its data request, and the wallet's own post (OWN_BODIES in server/app.ts)
    for (const target of ["/auth/logout", "/auth/logout.data", "/auth/wallet/response"]) {
      const res = await raw(target, {
        method: "POST",
        headers: {
          cookie,
          origin: server.url,
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(body.byteLength),
        },
        body,
      });
      expect(res.status, target).toBe(413);
      expect(res.headers["content-type"], target).toBe("application/json; charset=utf-8");
      expect(JSON.parse(res.text), target).toEqual({ error: "Request body too large (limit 1000000 bytes)" });
      expect(res.headers.connection).toBe("close");
    }
    const session = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
    expect(((await session.json()) as { user?: { username: string } }).user?.username).toBe("admin");
  });

  it("lets the same form post through from its own origin (the two refusals above are the gates')", async () => {
    const { cookie } = await signIn(server.url, "admin");
    const res = await fetch(`${server.url}/auth/logout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
      body: "x=1",
    });
    expect(res.status).toBe(302);
    const session = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
    expect(await session.json()).toEqual({});
  });
});
