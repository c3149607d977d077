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

/** the access body's work queue: for the regulator and operators, sorted by deadline */
describe("access-body queue", () => {
  it("gives the regulator the queue, soonest deadline first", async () => {
    const d = await load("regulator", "/access-body");
    expect(d.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(d.items.length).toBeGreaterThan(0);
    const days = d.items.map((i) => i.daysLeft).filter((x): x is number => typeof x === "number");
    expect(days).toEqual([...days].sort((a, b) => a - b));
  });

  it("refuses a data user and a patient with 403", async () => {
    expect(await status(load("researcher", "/access-body"))).toBe(403);
    expect(await status(load("patient1", "/access-body"))).toBe(403);
  });
});
