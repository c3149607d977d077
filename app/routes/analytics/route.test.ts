import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { getUser } from "../../session.server";
import { loader } from "./route";
import { analyticsView, type AnalyticsView } from "./view.server";

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
  it("gives a data user the view of the dashboard, as one JSON text of what the page draws", async () => {
    const { view } = await load("researcher", "/analytics");
    expect(typeof view).toBe("string");
    const d = JSON.parse(view) as AnalyticsView;
    const user = await getUser(await h.request("researcher", "/analytics"), h.context);
    const dashboard = await h.context.services.analytics.dashboard(user!, { top: 10 });
    expect(d).toEqual(analyticsView(dashboard));
    expect(d.totals).toEqual(dashboard.totals);
    expect(d.conditions.map((c) => c.key)).toEqual(dashboard.topConditions.map((c) => c.code));
    // only what is drawn: no concept ids, no time of the answer
    expect(view).not.toContain("omopConceptId");
    expect(view).not.toContain("generatedAt");
  });

  it("makes the same text for the same figures", async () => {
    expect((await load("researcher", "/analytics")).view).toBe((await load("researcher", "/analytics")).view);
  });

  it("refuses a patient and the trust center with 403", async () => {
    expect(await status(load("patient1", "/analytics"))).toBe(403);
    expect(await status(load("trustcenter", "/analytics"))).toBe(403);
  });
});
