import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { loader } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (persona: string | null, path: string) =>
  loader({ request: await h.request(persona, path), context: h.context, params: {} });

const status = async (p: Promise<unknown>) => ((await thrown(p)) as Response).status;

/** the graph page's loader: the explorer's frame (controls, counts, error), never the drawing's graph */
describe("graph page", () => {
  it("carries the scope's counts and controls, not the graph", async () => {
    const d = await load("researcher", "/graph?layer=l2&limit=20");
    expect(d.error).toBeNull();
    expect(d).not.toHaveProperty("graph");
    expect(d).not.toHaveProperty("nodes");
    expect(d.layer).toBe("l2");
    expect(d.limit).toBe(20);
    expect(d.meta.returnedNodes).toBeGreaterThan(0);
    expect(d.meta.returnedNodes).toBeLessThanOrEqual(20);
    expect(d.meta.totalNodes).toBeGreaterThanOrEqual(d.meta.returnedNodes);
    // one persona filter per persona (issue 40), not the API's aliases (operator, hdab, holder, user, trust)
    expect(d.personas.map((p) => p.value)).toEqual([
      "admin",
      "regulator",
      "clinic",
      "lmc",
      "researcher",
      "trustcenter",
      "patient",
    ]);
    expect(new Set(d.personas.map((p) => p.label)).size).toBe(d.personas.length);
    // the frame is small whatever the limit: its size does not grow with the nodes drawn
    const big = await load("admin", "/graph?limit=1000");
    expect(big.meta.returnedNodes).toBeGreaterThan(100);
    expect(JSON.stringify(big).length).toBeLessThan(2_000);
  });

  it("falls back to all layers on a scope the service refuses, and says why", async () => {
    const d = await load("admin", "/graph?layer=l9&limit=50");
    expect(d.error).toMatch(/layer/i);
    expect(d.layer).toBe("all");
    expect(d.meta.returnedNodes).toBeGreaterThan(0);
  });

  it("passes the requested focus on to the drawing", async () => {
    expect((await load("admin", "/graph?focus=abc")).focus).toBe("abc");
    expect((await load("admin", "/graph")).focus).toBeNull();
  });

  it("refuses a patient with 403", async () => {
    expect(await status(load("patient1", "/graph"))).toBe(403);
  });
});
