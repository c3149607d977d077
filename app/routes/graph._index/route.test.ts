import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { decodeGraph } from "../../components/graph/wire";
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
    const graph = decodeGraph(d.graph);
    expect(graph.nodes.length).toBeGreaterThan(0);
    expect(graph.nodes.length).toBeLessThanOrEqual(20);
    expect(d.meta.returnedNodes).toBe(graph.nodes.length);
    for (const n of graph.nodes) {
      expect(n.layer).toBe("l2");
      expect(typeof n.caption === "string" && n.caption.length > 0).toBe(true);
    }
    const ids = new Set(graph.nodes.map((n) => n.id));
    for (const e of graph.edges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
  });

  it("carries the same drawing again while the graph is unchanged, and a focus adds its neighbourhood", async () => {
    const a = await load("admin", "/graph?limit=100");
    const b = await load("admin", "/graph?limit=100");
    expect(b.graph).toBe(a.graph);
    const first = decodeGraph(a.graph);
    const focusId = first.nodes[0].id;
    const f = await load("admin", `/graph?limit=100&focus=${encodeURIComponent(focusId)}`);
    expect(f.focus).toBe(focusId);
    const focused = decodeGraph(f.graph);
    expect(focused.nodes.length).toBeGreaterThanOrEqual(first.nodes.length);
    expect(new Set(focused.nodes.map((n) => n.id)).size).toBe(focused.nodes.length);
  });

  it("refuses a patient with 403", async () => {
    expect(await status(load("patient1", "/graph"))).toBe(403);
  });
});
