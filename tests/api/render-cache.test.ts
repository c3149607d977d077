import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Documents whose status, URL and loader data are those of a document rendered a moment ago come
 * from the render cache (server/http/render-cache.ts, decision 0035): each answer still has a nonce
 * of its own, what the loaders read is new on every request, and one user's page never answers another's.
 */

let server: TestServer;
const who: Record<string, Signed> = {};

beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "20" });
  for (const p of ["admin", "researcher", "clinic"]) who[p] = await signIn(server.url, p);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function page(persona: string, url: string) {
  // identity: the length checked below is the page's own, not the compressed one (tests/api/compression.test.ts)
  const res = await who[persona]!.api(url, {
    headers: { accept: "text/html", "accept-encoding": "identity" },
  });
  const body = await res.text();
  const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1] ?? "";
  return { status: res.status, body, nonce, length: Number(res.headers.get("content-length")) };
}

describe("pages answered from the render cache", () => {
  it("gives each answer its own nonce, in its header and its scripts, and the same page otherwise", async () => {
    const a = await page("researcher", "/catalogue");
    const hits = server.renderCache().hits;
    const b = await page("researcher", "/catalogue");
    // the second came from the cache
    expect(server.renderCache().hits).toBe(hits + 1);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.nonce).not.toBe(b.nonce);
    for (const p of [a, b]) {
      const nonces = new Set([...p.body.matchAll(/nonce="([^"]+)"/g)].map((m) => m[1]));
      expect(nonces).toEqual(new Set([p.nonce]));
      expect(p.body).not.toContain("hubnonce");
      expect(p.length).toBe(Buffer.byteLength(p.body));
    }
    expect(b.body.split(b.nonce).join("N")).toBe(a.body.split(a.nonce).join("N"));
  });

  it("shows a change made through the API on the next request", async () => {
    const before = await page("researcher", "/catalogue");
    const id = `ds-render-cache-${Date.now().toString(36)}`;
    const title = `Render cache probe ${id}`;
    const created = await who.clinic!.api("/api/catalog", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id, title }),
    });
    expect(created.status).toBe(201);
    expect(before.body).not.toContain(title);
    const misses = server.renderCache().misses;
    expect((await page("researcher", "/catalogue")).body).toContain(title);
    expect(server.renderCache().misses).toBe(misses + 1);
  });

  it("answers each user's own page for the same URL", async () => {
    const admin = await page("admin", "/");
    const researcher = await page("researcher", "/");
    const again = await page("admin", "/");
    expect(admin.body).toContain("Jonas Becker");
    expect(researcher.body).toContain("Dr. Lukas Schmidt");
    expect(researcher.body).not.toContain("Jonas Becker");
    expect(again.body.split(again.nonce).join("N")).toBe(admin.body.split(admin.nonce).join("N"));
  });
});
