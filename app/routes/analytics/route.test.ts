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

/** the analytics dashboard's loader: the roles of GET /api/analytics */
describe("analytics", () => {
  it("gives a data user the dashboard", async () => {
    const d = await load("researcher", "/analytics");
    expect(d.d).toBeTruthy();
    expect(typeof d.d).toBe("object");
  });

  it("refuses a patient and the trust center with 403", async () => {
    expect(await status(load("patient1", "/analytics"))).toBe(403);
    expect(await status(load("trustcenter", "/analytics"))).toBe(403);
  });
});
