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

/** the graph view's loader: a bounded sample of the real graph for staff, refused to patients */
describe("graph", () => {
  it("answers a layer sample within the limit", async () => {
    const d = await load("researcher", "/graph?layer=l2&limit=20");
    expect(d.error).toBeNull();
    expect(d.graph.nodes.length).toBeGreaterThan(0);
    expect(d.graph.nodes.length).toBeLessThanOrEqual(20);
    expect(d.meta.returnedNodes).toBe(d.graph.nodes.length);
    const ids = new Set(d.graph.nodes.map((n) => n.id));
    for (const e of d.graph.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
  });

  it("refuses a patient with 403", async () => {
    expect(await status(load("patient1", "/graph"))).toBe(403);
  });
});
