import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { loader } from "./route";

let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const load = async (name: string) =>
  loader({ request: await h.request("admin", `/components/${name}`), context: h.context, params: { name } });

describe("components.$name loader", () => {
  it("answers an unknown component with the 404 page and the service's words", async () => {
    const r = (await thrown(load("nothing"))) as Response;
    expect(r.status).toBe(404);
    expect(await r.text()).toMatch(/^No component nothing: the components are /);
  });

  it("diagnoses a known one", async () => {
    const d = await load("graph-store");
    expect(d.diagnosis.component.name).toBe("graph-store");
  });
});
