import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPLICATION, UNDECIDED, UNDECIDED_APPLICATION_STATES } from "../../../server/access-body/machines";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { loader } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (path: string) =>
  loader({ request: await h.request("regulator", path), context: h.context, params: {} });

/** the state filter offers the application machine's states (server/access-body/machines.ts), no copy of them */
describe("access body's applications", () => {
  it("offers the machine's states and filters by one of them", async () => {
    const all = await load("/access-body/applications");
    expect(all.states).toEqual(APPLICATION.states);
    expect(all.state).toBe("");
    const granted = await load("/access-body/applications?state=GRANTED");
    expect(granted.state).toBe("GRANTED");
    expect(granted.applications.every((a) => a.state === "GRANTED")).toBe(true);
  });

  it("keeps 'awaiting a decision' and drops a state the machine does not have", async () => {
    const undecided = await load(`/access-body/applications?state=${UNDECIDED}`);
    expect(undecided.state).toBe(UNDECIDED);
    expect(undecided.applications.every((a) => UNDECIDED_APPLICATION_STATES.includes(a.state))).toBe(true);
    expect((await load("/access-body/applications?state=NOPE")).state).toBe("");
  });
});
