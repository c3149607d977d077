import { describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { createApiDispatcher, type DispatcherServices } from "./api-handler";
import { json } from "./errors";
import type { HandlerContext } from "./handler";

/** the dispatcher with what it reads itself: every hour open, nobody signed in */
function dispatcherWith(handler: (ctx: HandlerContext<DispatcherServices>) => Promise<Response>) {
  const services = {
    config: loadConfig({ NODE_ENV: "test", PUBLIC_URL: "http://hub.test" }),
    officeHours: { status: () => ({ open: true }), timeZone: "Europe/Berlin" },
    sessions: { cachedUser: () => null, userFromRequest: async () => null },
  } as unknown as DispatcherServices;
  const dispatch = createApiDispatcher(services, { "GET /api/health": handler });
  return (request: Request) => dispatch(request, () => request);
}

describe("a handler's context (the dispatcher's DispatchContext)", () => {
  it("has one shape for every request: its lazy parts are getters of its class, not of each context", async () => {
    const seen: HandlerContext<DispatcherServices>[] = [];
    const api = dispatcherWith(async (ctx) => (seen.push(ctx), json({ ok: true })));
    await api(new Request("http://hub.test/api/health?a=1"));
    await api(new Request("http://hub.test/api/health?b=2"));
    expect(seen).toHaveLength(2);
    expect(Object.getPrototypeOf(seen[0])).toBe(Object.getPrototypeOf(seen[1]));
    for (const key of ["request", "url", "query"]) {
      expect(Object.getOwnPropertyDescriptor(seen[0], key)).toBeUndefined();
      expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(seen[0]), key)?.get).toBe(
        "function",
      );
    }
  });

  it("builds the request, the URL and the query once each, and as before", async () => {
    let ctx!: HandlerContext<DispatcherServices>;
    const api = dispatcherWith(async (c) => ((ctx = c), json({ ok: true })));
    const request = new Request("http://hub.test/api/health?layer=l3&limit=5");
    expect((await api(request)).status).toBe(200);
    expect(ctx.request).toBe(request);
    expect(ctx.request).toBe(ctx.request);
    expect([...ctx.query.entries()]).toEqual([
      ["layer", "l3"],
      ["limit", "5"],
    ]);
    expect(ctx.query).toBe(ctx.query);
    expect(ctx.url.href).toBe("http://hub.test/api/health?layer=l3&limit=5");
    expect(ctx.url).toBe(ctx.url);
    expect([ctx.params, ctx.user]).toEqual([{}, null]);
    // the URL read first: the query is its searchParams
    const again = dispatcherWith(async (c) => ((ctx = c), json({ ok: true })));
    await again(new Request("http://hub.test/api/health?x=%C3%A9"));
    expect(ctx.url.searchParams.get("x")).toBe("é");
    expect(ctx.query).toBe(ctx.url.searchParams);
  });
});
