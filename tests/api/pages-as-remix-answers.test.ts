import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { cspFor } from "../../server/http/security-headers";
import { importServerBuild } from "../../server/http/server-build";
import { startTestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * Pages and their data are answered by Remix from Node's own request and response (server/app.ts,
 * server/http/remix-answer.ts, docs/decisions/0026, 0038, 0041). Each answer of the server is
 * compared with the answer Remix's own handler gives to the web Request the browser's request stands
 * for, with the same store and session: the same status, body and headers (the server adds its
 * security headers, and a text type without a charset gets utf-8, as express did). A document's
 * Content-Security-Policy names its inline scripts' hashes; any other answer has the edge's nonce policy.
 */

type Persona = "admin" | "regulator" | "researcher" | null;
const CASES: [Persona, string, string, Record<string, string>?][] = [
  [null, "GET", "/auth/signin"],
  [null, "GET", "/catalogue"],
  [null, "GET", "/no-such-page?x=1"],
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
  ["admin", "GET", "/"],
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const buildPath = path.resolve(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js");

async function answerOf(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  res.headers.forEach(
    (v, k) => (headers[k] = k === "set-cookie" ? res.headers.getSetCookie().join("\n") : v),
  );
  delete headers.date;
  return { status: res.status, headers, body: await res.text() };
}

describe("pages", () => {
  it("answer as Remix's own handler does: status, headers and body", async () => {
    const server = await startTestServer({ SEED_PATIENTS: "20" });
    // Remix in the mode the server runs it: development (error details) only with NODE_ENV=development
    const remix = createRequestHandler(
      await importServerBuild(pathToFileURL(buildPath).href),
      server.services.config.errorDetails ? "development" : "production",
    );
    try {
      const cookies: Record<string, string> = {};
      for (const p of ["admin", "regulator", "researcher"]) cookies[p] = (await signIn(server.url, p)).cookie;
      const statuses: number[] = [];
      for (const [persona, method, url, extra] of CASES) {
        const headers = {
          accept: "text/html",
          ...(persona ? { cookie: cookies[persona] } : {}),
          ...extra,
        };
        const got = await answerOf(await fetch(server.url + url, { method, redirect: "manual", headers }));
        statuses.push(got.status);
        expect(got.headers["content-security-policy"], `${method} ${url}: a CSP`).toMatch(
          /script-src 'self' '(nonce|sha256)-/,
        );
        // the URL Remix sees: behind a loopback proxy, its forwarded protocol and host
        const origin = extra?.["x-forwarded-host"]
          ? `${extra["x-forwarded-proto"]}://${extra["x-forwarded-host"]}`
          : server.url;
        const want = await answerOf(
          await remix(
            new Request(origin + url, { method, headers: { host: new URL(server.url).host, ...headers } }),
            { services: server.services, contentSecurityPolicy: (hashes) => cspFor(hashes) },
          ),
        );
        const norm = (s: string) =>
          s
            .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME")
            // (a script that states a time hashes otherwise: the body's scripts are compared above)
            .replace(/'sha256-[^']+'/g, "HASH")
            // a development-mode error's stack names the frames of the way it was called
            .replace(/\\+n {4}at [^\\"]+/g, "");
        const where = `${persona ?? "anonymous"} ${method} ${url}`;
        expect(got.status, where).toBe(want.status);
        expect(norm(got.body), where).toBe(norm(want.body));
        if (
          got.headers["content-length"] !== undefined &&
          got.headers["content-encoding"] === undefined &&
          method === "GET"
        )
          expect(Number(got.headers["content-length"]), where).toBe(Buffer.byteLength(got.body));
        for (const [k, v] of Object.entries(want.headers)) {
          if (k === "content-length") continue;
          const expected =
            k === "content-type" && !/charset/i.test(v) && /^(text\/|application\/(javascript|json))/.test(v)
              ? `${v}; charset=utf-8`
              : v;
          expect(`${k}: ${norm(got.headers[k] ?? "(missing)")}`, where).toBe(`${k}: ${norm(expected)}`);
        }
        // the server's own security headers on every page answer
        expect(got.headers["x-frame-options"], where).toBe("DENY");
        expect(got.headers["x-content-type-options"], where).toBe("nosniff");
      }
      expect(statuses).toEqual([
        200, 302, 404, 200, 200, 200, 200, 200, 403, 200, 200, 200, 200, 200, 202, 200,
      ]);
    } finally {
      await server.close();
    }
  }, 120_000);
});
