import { createHash } from "node:crypto";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Documents whose status, URL and loader data are those of a document rendered a moment ago come
 * from the render cache (server/http/render-cache.ts, decisions 0035, 0073): the same bytes, with
 * their gzip made once, and a Content-Security-Policy that allows exactly their inline scripts by their
 * hashes; what the loaders read is new on every request, and one user's page never answers another's.
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

/** a page as sent (node:http: fetch would decode its gzip), with its headers */
function page(persona: string, url: string, encoding = "identity") {
  return new Promise<{
    status: number;
    bytes: Buffer;
    body: string;
    csp: string;
    hashes: string[];
    length: number;
  }>((resolve, reject) => {
    const headers = { accept: "text/html", "accept-encoding": encoding, cookie: who[persona]!.cookie };
    http
      .get(server.url + url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const bytes = Buffer.concat(chunks);
          const csp = String(res.headers["content-security-policy"] ?? "");
          resolve({
            status: res.statusCode ?? 0,
            bytes,
            body: (res.headers["content-encoding"] === "gzip" ? gunzipSync(bytes) : bytes).toString(),
            csp,
            hashes: [...csp.matchAll(/'sha256-([^']+)'/g)].map((m) => m[1]!),
            length: Number(res.headers["content-length"]),
          });
        });
      })
      .on("error", reject);
  });
}

describe("pages answered from the render cache", () => {
  it("answers the same bytes again, allowing exactly its inline scripts by their hashes", async () => {
    const a = await page("researcher", "/catalogue");
    const hits = server.renderCache().hits;
    const b = await page("researcher", "/catalogue");
    // the second came from the cache
    expect(server.renderCache().hits).toBe(hits + 1);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(b.csp).toBe(a.csp);
    const inline = [...a.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
      .filter((m) => !/\bsrc=/.test(m[1]!))
      .map((m) => createHash("sha256").update(m[2]!).digest("base64"));
    expect(inline.length).toBeGreaterThan(0);
    expect(new Set(a.hashes)).toEqual(new Set(inline));
    expect(a.csp).not.toContain("nonce");
    expect(a.body).not.toContain("nonce=");
    expect(a.length).toBe(a.bytes.byteLength);
  });

  it("sends a kept document's gzip, the same bytes each time", async () => {
    const plain = await page("researcher", "/catalogue");
    const a = await page("researcher", "/catalogue", "gzip");
    const b = await page("researcher", "/catalogue", "br, gzip");
    expect(a.bytes[0]).toBe(0x1f);
    expect(a.body).toBe(plain.body);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(a.length).toBe(a.bytes.byteLength);
    expect(a.length).toBeLessThan(plain.length / 2);
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
    expect(again.bytes.equals(admin.bytes)).toBe(true);
  });
});
