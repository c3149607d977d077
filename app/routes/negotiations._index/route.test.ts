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

/** the negotiations list: the acting participant's negotiations from the embedded dataspace */
describe("negotiations", () => {
  it("lists the researcher's organisation's negotiations with the known states to filter by", async () => {
    const d = await load("researcher", "/negotiations");
    expect(d.error).toBeNull();
    expect(d.acting.participantId).toBeTruthy();
    expect(Array.isArray(d.negotiations)).toBe(true);
    expect(d.states).toEqual(expect.arrayContaining(["REQUESTED", "FINALIZED"]));
  });

  it("filters by state", async () => {
    const d = await load("researcher", "/negotiations?state=finalized");
    expect(d.stateFilter).toBe("FINALIZED");
    for (const n of d.negotiations) expect(n.state).toBe("FINALIZED");
  });

  it("refuses the regulator with 403", async () => {
    expect(await status(load("regulator", "/negotiations"))).toBe(403);
  });
});
