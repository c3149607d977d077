import { readdirSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Every text answer leaves the edge brotli- or gzip-encoded when the client takes it
 * (server/http/compression.ts, docs/decisions/0056): pages, JSON, scripts and styles; the bytes
 * decode to the body sent to a client that takes no encoding.
 */

let server: TestServer;
let clinic: Signed;
beforeAll(async () => {
  server = await startTestServer({ SEED_PATIENTS: "20" });
  clinic = await signIn(server.url, "clinic");
}, 120_000);
afterAll(async () => {
  await server?.close();
});

interface BytesAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** one GET with node:http (fetch would decode the body itself), the body as bytes */
function get(target: string, headers: Record<string, string>, method = "GET"): Promise<BytesAnswer> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: target, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const decode = (a: BytesAnswer) =>
  a.headers["content-encoding"] === "br"
    ? brotliDecompressSync(a.body)
    : a.headers["content-encoding"] === "gzip"
      ? gunzipSync(a.body)
      : a.body;

const clientDir = path.resolve(process.env.HUB_BUILD_DIR ?? "build", "client");
const files = readdirSync(clientDir, { recursive: true, encoding: "utf8" });
/** the largest file of a kind in the browser build */
const largest = (ext: string) =>
  files
    .filter((f) => f.endsWith(ext))
    .sort((a, b) => statSync(path.join(clientDir, b)).size - statSync(path.join(clientDir, a)).size)[0];
const script = largest(".js");
const style = largest(".css");

describe("compression at the edge", () => {
  const texts = () => [
    { what: "the landing page (HTML)", target: "/", cookie: "" },
    { what: "a signed-in page (HTML)", target: "/catalogue", cookie: clinic.cookie },
    { what: "a page's data (JSON)", target: "/catalogue.data", cookie: clinic.cookie },
    // (an API answer that the server keeps encoded leaves with its own gzip, made once: see below)
    { what: "an API answer (JSON)", target: "/api/patient?limit=50", cookie: clinic.cookie },
    { what: "the browser's script", target: `/build/${script}`, cookie: "" },
    { what: "a style sheet", target: `/build/${style}`, cookie: "" },
  ];

  it("sends brotli to a client that prefers it and gzip to one that takes only gzip: the same bytes", async () => {
    expect(script && style).toBeTruthy();
    for (const { what, target, cookie } of texts()) {
      const plain = await get(target, { "accept-encoding": "identity", cookie });
      expect(plain.status, what).toBe(200);
      expect(plain.headers["content-encoding"], what).toBeUndefined();
      expect(plain.body.byteLength, what).toBeGreaterThan(1024);
      const br = await get(target, { "accept-encoding": "br, gzip", cookie });
      // a kept API answer and a rendered document leave with their own gzip, made once
      expect(br.headers["content-encoding"], what).toEqual(
        target.startsWith("/api") || what.endsWith("(HTML)") ? expect.any(String) : "br",
      );
      expect(br.headers.vary, what).toMatch(/accept-encoding/i);
      expect(br.body.byteLength, what).toBeLessThan(plain.body.byteLength / 2);
      const gz = await get(target, { "accept-encoding": "gzip", cookie });
      expect(gz.headers["content-encoding"], what).toBe("gzip");
      expect(decode(br).equals(plain.body), what).toBe(true);
      expect(decode(gz).equals(plain.body), what).toBe(true);
    }
  });

  it("leaves small bodies, HEAD and a kept answer's own gzip as they are", async () => {
    const small = await get("/api/no-such-route", { "accept-encoding": "br, gzip" });
    expect(small.status).toBe(404);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toHaveProperty("error");

    const head = await get(`/build/${script}`, { "accept-encoding": "br, gzip" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);

    // the catalogue is a kept answer with its gzip made once (server/http/node-adapter.ts): not encoded twice
    const kept = await get("/api/catalog", { "accept-encoding": "br, gzip", cookie: clinic.cookie });
    expect(kept.status).toBe(200);
    expect(["gzip", "br"]).toContain(kept.headers["content-encoding"]);
    expect(Array.isArray(JSON.parse(decode(kept).toString()))).toBe(true);
  });
});
