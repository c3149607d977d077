import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { loader } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (persona: string | null, path: string) =>
  loader({ request: await h.request(persona, path), context: h.context, params: {} });

/** the catalogue list's loader: search over the real catalogue, publish rights from the route table */
describe("catalogue", () => {
  it("lists datasets for any signed-in user and offers publishing to data holders only", async () => {
    const holder = await load("clinic", "/catalogue");
    expect(holder.total).toBeGreaterThan(0);
    expect(holder.results.length).toBeGreaterThan(0);
    expect(holder.canPublish).toBe(true);
    const user = await load("researcher", "/catalogue");
    expect(user.total).toBe(holder.total);
    expect(user.canPublish).toBe(false);
  });

  it("filters by the query text", async () => {
    const all = await load("researcher", "/catalogue");
    const first = all.results[0];
    const found = await load("researcher", `/catalogue?q=${encodeURIComponent(first.title)}`);
    expect(found.results.map((r) => r.id)).toContain(first.id);
    const none = await load("researcher", "/catalogue?q=zzzz-no-such-dataset-zzzz");
    expect(none.results).toEqual([]);
    expect(none.total).toBe(all.total);
  });
});
