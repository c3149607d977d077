import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { importServerBuild } from "../server/http/server-build";
import { startRouteHarness, type RouteHarness } from "../tests/support/route-context";
import { getUser } from "./session.server";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

/** one session read per page request, shared by its loaders; a later request or a form post reads again */
describe("getUser", () => {
  it("reads the session once for a document request that runs three loaders", async () => {
    const build = await importServerBuild(pathToFileURL(path.resolve("build/remix/index.js")).href);
    const handle = createRequestHandler(build, "production");
    const request = await h.request("admin", "/graph?limit=20");
    const reads = vi.spyOn(h.context.services.sessions, "userFromRequest");
    try {
      const res = await handle(request, {
        services: h.context.services,
        cspNonce: "n",
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('data-testid="graph-page"');
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it("reads again once the read has settled, with another cookie, and for a post", async () => {
    const asAdmin = await h.request("admin", "/");
    const asResearcher = await h.request("researcher", "/");
    const post = await h.post("admin", "/", {});
    const elsewhere = await h.request("admin", "/catalogue");
    const reads = vi.spyOn(h.context.services.sessions, "userFromRequest");
    try {
      const [a, b] = await Promise.all([getUser(asAdmin, h.context), getUser(asAdmin, h.context)]);
      expect(a?.username).toBe("admin");
      expect(b).toBe(a);
      expect(reads).toHaveBeenCalledTimes(1);
      // the next turn of the event loop: another request
      await new Promise((resolve) => setImmediate(resolve));
      expect((await getUser(asAdmin, h.context))?.username).toBe("admin");
      expect(reads).toHaveBeenCalledTimes(2);
      const [c, d] = await Promise.all([getUser(asAdmin, h.context), getUser(asResearcher, h.context)]);
      expect([c?.username, d?.username]).toEqual(["admin", "researcher"]);
      // the admin's read of this turn is still shared; the researcher's cookie reads anew
      expect(reads).toHaveBeenCalledTimes(3);
      await Promise.all([getUser(post, h.context), getUser(post, h.context)]);
      expect(reads).toHaveBeenCalledTimes(5);
      // another URL with the same cookie and context (static mode's persona is in the path): read again
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([getUser(asAdmin, h.context), getUser(elsewhere, h.context)]);
      expect(reads).toHaveBeenCalledTimes(7);
    } finally {
      reads.mockRestore();
    }
  });
});
