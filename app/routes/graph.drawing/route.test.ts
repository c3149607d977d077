import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { decodeGraph } from "../../components/graph/wire";
import { OVERVIEW_PER_LAYER } from "../../lib/graph/overview";
import { loader as pageLoader } from "../graph._index/route";
import { loader, type DrawingData } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (persona: string | null, path: string) =>
  (await loader({ request: await h.request(persona, path), context: h.context, params: {} })) as DrawingData;

const drawn = (d: DrawingData) => {
  if ("error" in d) throw new Error(`the drawing failed: ${d.error}`);
  return d;
};

const status = async (p: Promise<unknown>) => ((await thrown(p)) as Response).status;

/** the explorer's drawing (loaded after hydration): a bounded sample of the real graph for staff */
describe("graph drawing", () => {
  it("answers a layer sample within the limit", async () => {
    const d = drawn(await load("researcher", "/graph/drawing?layer=l2&limit=20"));
    expect(d.focusError).toBeNull();
    const graph = decodeGraph(d.graph);
    expect(graph.nodes.length).toBeGreaterThan(0);
    expect(graph.nodes.length).toBeLessThanOrEqual(20);
    for (const n of graph.nodes) {
      expect(n.layer).toBe("l2");
      expect(typeof n.caption === "string" && n.caption.length > 0).toBe(true);
    }
    const ids = new Set(graph.nodes.map((n) => n.id));
    for (const e of graph.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
  });

  it("draws what the page counts, the same string again while the graph is unchanged, and a focus adds its neighbourhood", async () => {
    const a = drawn(await load("admin", "/graph/drawing?limit=100"));
    const b = drawn(await load("admin", "/graph/drawing?limit=100"));
    expect(b.graph).toBe(a.graph);
    const first = decodeGraph(a.graph);
    expect(first.nodes.length).toBe(100);
    const focusId = first.nodes[0].id;
    const f = drawn(await load("admin", `/graph/drawing?limit=100&focus=${encodeURIComponent(focusId)}`));
    expect(f.focus).toBe(focusId);
    const focused = decodeGraph(f.graph);
    expect(focused.nodes.length).toBeGreaterThanOrEqual(first.nodes.length);
    expect(new Set(focused.nodes.map((n) => n.id)).size).toBe(focused.nodes.length);
  });

  it("falls back to all layers on a refused scope, and names an unknown focus without failing", async () => {
    const all = drawn(await load("admin", "/graph/drawing?limit=50"));
    const bad = drawn(await load("admin", "/graph/drawing?layer=l9&limit=50"));
    expect(bad.graph).toBe(all.graph);
    const f = drawn(await load("admin", "/graph/drawing?limit=50&focus=no-such-node"));
    expect(f.focus).toBeNull();
    expect(f.focusError).toMatch(/no-such-node|not found/i);
    expect(f.graph).toBe(all.graph);
  });

  it("opens on the overview: a few labelled nodes of each layer, the page's counts, and a layer expands", async () => {
    const o = decodeGraph(drawn(await load("admin", "/graph/drawing")).graph);
    const whole = decodeGraph(drawn(await load("admin", "/graph/drawing?layer=all")).graph);
    expect(whole.nodes.length).toBeGreaterThan(100);
    const layers = new Set(whole.nodes.map((n) => n.layer));
    expect(new Set(o.nodes.map((n) => n.layer))).toEqual(layers);
    for (const l of layers) {
      const inLayer = o.nodes.filter((n) => n.layer === l);
      expect(inLayer.length).toBeGreaterThan(0);
      expect(inLayer.length).toBeLessThanOrEqual(OVERVIEW_PER_LAYER);
    }
    const ids = new Set(o.nodes.map((n) => n.id));
    for (const e of o.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
    const frame = await pageLoader({
      request: await h.request("admin", "/graph"),
      context: h.context,
      params: {},
    });
    expect(frame.overview).toBe(true);
    expect(frame.meta.returnedNodes).toBe(o.nodes.length);
    expect(frame.meta.returnedEdges).toBe(o.edges.length);
    // a layer asked for is that layer's own drawing, up to the default limit
    const l3 = decodeGraph(drawn(await load("admin", "/graph/drawing?layer=l3")).graph);
    expect(l3.nodes.length).toBeGreaterThan(o.nodes.filter((n) => n.layer === "l3").length);
    expect(
      (
        await pageLoader({
          request: await h.request("admin", "/graph?layer=l3"),
          context: h.context,
          params: {},
        })
      ).overview,
    ).toBe(false);
  });

  it("refuses a patient with 403", async () => {
    expect(await status(load("patient1", "/graph/drawing"))).toBe(403);
  });
});
