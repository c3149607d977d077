import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../../server/app";
import { loadConfig } from "../../server/config";
import { freePort } from "../support/server";
import { signIn } from "../support/signin";

/**
 * A GET or HEAD of a page or its data skips express (server/app.ts, docs/decisions/0026, 0038): the same pages, asked of
 * the same store once that way and once through the express app, answer the same status, headers and
 * body (the CSP nonce and timestamps aside).
 */

const dataDir = mkdtempSync(path.join(tmpdir(), "hub-test-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type Persona = "admin" | "regulator" | "researcher" | null;
const CASES: [Persona, string, string, Record<string, string>?][] = [
  [null, "GET", "/auth/signin"],
  [null, "GET", "/catalogue"],
  [null, "GET", "/no-such-page?x=1"],
  // (the overview's body carries the graph's version, which differs between two starts)
  ["admin", "HEAD", "/"],
  ["regulator", "GET", "/access-body/applications"],
  ["admin", "GET", "/graph"],
  ["researcher", "GET", "/register"],
  ["regulator", "GET", "/access-body"],
  ["researcher", "GET", "/access-body"],
  [
    "researcher",
    "GET",
    "/catalogue",
    { "x-forwarded-host": "hub.example:8443", "x-forwarded-proto": "https" },
  ],
  ["admin", "GET", "/information"],
  // data requests (decision 0038): a fetcher's, a navigation's, and one refused by the route's loader
  ["admin", "GET", "/graph/drawing.data?_routes=routes%2Fgraph.drawing"],
  ["regulator", "GET", "/access-body.data"],
  ["researcher", "HEAD", "/catalogue.data?_routes=routes%2Fcatalogue._index"],
  [null, "GET", "/access-body.data"],
];

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

async function answers(pagesThroughExpress: boolean): Promise<Answer[]> {
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    SEED_PATIENTS: "20",
  });
  const server = await startServer(config, {
    remixBuildPath: path.resolve(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js"),
    pagesThroughExpress,
  });
  try {
    const cookies: Record<string, string> = {};
    for (const p of ["admin", "regulator", "researcher"]) cookies[p] = (await signIn(server.url, p)).cookie;
    const out: Answer[] = [];
    for (const [persona, method, url, extra] of CASES) {
      const res = await fetch(server.url + url, {
        method,
        redirect: "manual",
        headers: { accept: "text/html", ...(persona ? { cookie: cookies[persona] } : {}), ...extra },
      });
      const body = await res.text();
      const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
      const norm = (s: string) =>
        (nonce ? s.split(nonce).join("NONCE") : s)
          .replaceAll(`:${port}`, ":PORT")
          .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME")
          // a development-mode error's stack (404) names the express adapter's frame only on that way
          .replace(/\\+n {4}at [^\\"]+/g, "");
      // the length is checked against the body here, and compared as the bodies are
      const length = res.headers.get("content-length");
      if (length !== null && method === "GET") expect(Number(length)).toBe(Buffer.byteLength(body));
      const headers = [...res.headers.entries()]
        .filter(([k]) => k !== "date" && k !== "content-length")
        .map(([k, v]): [string, string] => [k, norm(v)]);
      out.push({ status: res.status, headers, body: norm(body) });
    }
    return out;
  } finally {
    await server.close();
  }
}

describe("pages without express", () => {
  it("answer as the express app does: status, headers and body", async () => {
    const direct = await answers(false);
    const viaExpress = await answers(true);
    expect(direct.map((a) => a.status)).toEqual([
      200, 302, 404, 200, 200, 200, 200, 200, 403, 200, 200, 200, 200, 200, 202,
    ]);
    for (let i = 0; i < CASES.length; i++) {
      expect({ case: CASES[i], ...direct[i] }).toEqual({ case: CASES[i], ...viaExpress[i] });
    }
    // a document carries its nonce and the security headers
    const home = direct[5];
    expect(home.body).toContain('nonce="NONCE"');
    expect(home.headers).toContainEqual(["x-frame-options", "DENY"]);
    expect(home.headers).toContainEqual(["content-type", "text/html; charset=utf-8"]);
  }, 120_000);
});
