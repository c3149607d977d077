import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { createRemixHandlers, routesOfDocument, routeTree } from "../../server/http/remix-handlers";
import { cspFor } from "../../server/http/security-headers";
import { importServerBuild } from "../../server/http/server-build";
import { startTestServer } from "../support/server";
import { signIn } from "../support/signin";

/**
 * A page's document from a build holding only the routes it needs (server/http/remix-handlers.ts) is
 * the document of the whole build, byte for byte: every route of the app, as five personas and
 * anonymous. The two are asked on different hosts, so that neither answer comes from the render
 * cache's copy of the other (its key holds the URL).
 */

const buildPath = path.resolve(process.env.HUB_BUILD_DIR ?? "build", "remix", "index.js");

/** every route's URL, its parameters filled with a seeded id where one exists, else with `x` */
function urlsOf(build: ServerBuild, ids: Record<string, string>): string[] {
  const urls = new Set<string>();
  for (const route of Object.values(build.routes)) {
    const parts: string[] = [];
    for (let r: typeof route | undefined = route; r; r = r.parentId ? build.routes[r.parentId] : undefined)
      if (r.path) parts.unshift(r.path);
    const pattern = `/${parts.join("/")}`;
    urls.add(pattern.replace(/:(\w+)/g, (_m, p: string) => ids[pattern] ?? ids[p] ?? "x"));
  }
  return [...urls, "/no-such-page", "/patients/patient-000001/", "/catalogue?q=diabetes"];
}

describe("a document needs only the routes its URL matches", () => {
  it("finds the routes Remix announces in the document: the URL's matches and its shorter paths'", async () => {
    const build = await importServerBuild(pathToFileURL(buildPath).href);
    const tree = routeTree(build.routes);
    expect([...routesOfDocument(tree, "/patients/patient-000001")!].sort()).toEqual([
      "root",
      "routes/_index",
      "routes/patients.$id",
      "routes/patients._index",
    ]);
    expect([...routesOfDocument(tree, "/")!].sort()).toEqual(["root", "routes/_index"]);
    expect(routesOfDocument(tree, "/graph/drawing")).toContain("routes/graph._index");
    expect(routesOfDocument(tree, "/no/such/page")).toBeNull();
  });

  it("renders every page as the whole build does", async () => {
    const server = await startTestServer({ SEED_PATIENTS: "20" });
    try {
      const build = await importServerBuild(pathToFileURL(buildPath).href);
      const whole = createRequestHandler(build, "production");
      const bySet = createRemixHandlers(build, "production");
      const context = { services: server.services, contentSecurityPolicy: (h: string[]) => cspFor(h) };
      const people = ["admin", "regulator", "researcher", "clinic", "patient1"];
      const cookies: Record<string, string> = { anonymous: "" };
      for (const p of people) cookies[p] = (await signIn(server.url, p)).cookie;
      const catalogue = await fetch(`${server.url}/api/catalog`, {
        headers: { cookie: cookies.researcher! },
      });
      const dataset = (await catalogue.json()) as { id: string }[];
      const urls = urlsOf(build, {
        "/catalogue/:id": dataset[0]!.id,
        "/patients/:id": "patient-000001",
        "/components/:name": "graphdb",
        "/applications/:id": "x",
      });
      let compared = 0;
      const unstable = new Set<string>();
      const statuses = new Set<number>();
      for (const [who, cookie] of Object.entries(cookies)) {
        for (const url of urls) {
          const ask = (host: string, handler: typeof whole) =>
            handler(
              new Request(`http://${host}${url}`, { headers: { accept: "text/html", cookie } }),
              context,
            );
          const [a, b] = [await ask("whole.test", whole), await ask("by-set.test", bySet)];
          const [bodyA, bodyB] = [await a.text(), await b.text()];
          const norm = (s: string, host: string) =>
            s.replaceAll(host, "HOST").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME");
          expect(b.status, `${who} ${url}`).toBe(a.status);
          // (a sign-in's redirect carries a fresh state, nonce and PKCE challenge each time)
          const place = (r: Response) => r.headers.get("location")?.replace(/=[\w-]{20,}/g, "=RANDOM");
          expect(place(b), `${who} ${url}`).toBe(place(a));
          statuses.add(a.status);
          if (norm(bodyB, "by-set.test") !== norm(bodyA, "whole.test")) {
            // a page that differs from itself (the wallet's sign-in starts a new session and QR code
            // each time; the audit trail grows with each look) is compared by the route manifest it
            // announces to the browser, not its bytes
            const again = await ask("whole.test", whole);
            if (norm(await again.text(), "whole.test") !== norm(bodyA, "whole.test")) {
              const manifest = (s: string) => /__remixManifest = (\{[^]*?\n\});/.exec(s)?.[1] ?? null;
              expect(manifest(bodyB), `${who} ${url}`).toBe(manifest(bodyA));
              unstable.add(`${who} ${url}`);
              continue;
            }
            expect(norm(bodyB, "by-set.test"), `${who} ${url}`).toBe(norm(bodyA, "whole.test"));
          }
          compared++;
        }
      }
      expect(unstable).toContain("anonymous /auth/wallet");
      expect(compared, [...unstable].join(", ")).toBeGreaterThan(urls.length * 6 * 0.9);
      expect(compared + unstable.size).toBe(urls.length * 6);
      // pages, redirects to sign-in, refusals and unknown pages were all among them
      expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 302, 403, 404]));
    } finally {
      await server.close();
    }
  }, 300_000);
});
