import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { action, loader } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (persona: string | null, path: string) =>
  loader({ request: await h.request(persona, path), context: h.context, params: {} });

const status = async (p: Promise<unknown>) => ((await thrown(p)) as Response).status;

/** the patient's own record: only for PATIENT, and only their own */
describe("my-record", () => {
  it("gives each patient their own record", async () => {
    const one = await load("patient1", "/my-record");
    const two = await load("patient2", "/my-record");
    expect(one.view).toBeTruthy();
    expect(two.view).toBeTruthy();
    expect(JSON.stringify(one.view)).not.toBe(JSON.stringify(two.view));
  });

  it("refuses a data holder with 403", async () => {
    expect(await status(load("clinic", "/my-record"))).toBe(403);
  });

  it("a consent change without a programme names studyId (the form's hidden field) with the spec's text", async () => {
    const r = await action({
      request: await h.post("patient1", "/my-record", { intent: "grant", studyId: "" }),
      context: h.context,
      params: {},
    });
    expect(r).toMatchObject({
      ok: false,
      message: "patientId and studyId are required",
      fields: [{ field: "studyId", message: "Required" }],
    });
  });
});
