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

/** the home page's loader: each persona's views come from the role lists derived from the route table */
describe("home", () => {
  it("sends an anonymous visitor to sign in, back to where they were going", async () => {
    const r = (await thrown(load(null, "/"))) as Response;
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/auth/signin?returnTo=%2F");
  });

  it("shows a researcher the graph and insight views and no patient views", async () => {
    const d = await load("researcher", "/");
    expect(d.name).toBeTruthy();
    const to = d.views.map((v) => v.to);
    expect(to).toEqual(expect.arrayContaining(["/graph", "/analytics", "/negotiations", "/applications"]));
    expect(to).not.toContain("/patients");
    expect(to).not.toContain("/my-record");
    expect(to).not.toContain("/");
    expect(d.layers.length).toBeGreaterThan(0);
  });

  it("shows a patient their record and no graph", async () => {
    const d = await load("patient1", "/");
    const to = d.views.map((v) => v.to);
    expect(to).toEqual(expect.arrayContaining(["/my-record", "/devices"]));
    expect(to).not.toContain("/graph");
    expect(to).not.toContain("/analytics");
  });
});
