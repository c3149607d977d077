import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, thrown, type RouteHarness } from "../../../tests/support/route-context";
import { action, loader } from "./route";

/** /catalogue/new: the publish form's loader and action, called with a Request (real services). */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const publish = async (persona: string, fields: Record<string, string>) =>
  action({ request: await h.post(persona, "/catalogue/new", fields), context: h.context, params: {} });

describe("catalogue.new", () => {
  it("opens for a data holder with their organisation as publisher, refuses a data user", async () => {
    const data = await loader({
      request: await h.request("clinic", "/catalogue/new"),
      context: h.context,
      params: {},
    });
    expect(data.publisher).toBe("AlphaKlinik Berlin");
    // the purposes of secondary use, EHDS Art. 53(1)(a)–(f), as the form's vocabulary
    expect(data.purposes.map((p) => p.label)).toContain("Scientific research (Art. 53(1)(e))");
    expect(data.purposes).toHaveLength(6);
    const refused = await thrown(
      loader({ request: await h.request("researcher", "/catalogue/new"), context: h.context, params: {} }),
    );
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(403);
  });

  it("marks the missing field from the service's field errors, with the spec's text as the notice", async () => {
    const r = await publish("clinic", { id: "route-test-missing", title: "  " });
    expect(r).not.toBeInstanceOf(Response);
    expect(r).toMatchObject({
      error: "id and title are required",
      fields: [{ field: "title", message: "Required" }],
      values: { id: "route-test-missing" },
    });
    expect(await h.context.services.catalogue.get("route-test-missing")).toBeNull();
  });

  it("marks a malformed list item by its field (conformsTo.0 → conformsTo) and keeps the values", async () => {
    const r = await publish("clinic", {
      id: "route-test-bad-url",
      title: "Bad URL",
      conformsTo: "not a url",
    });
    expect(r).toMatchObject({
      error: expect.stringMatching(/^conformsTo\.0: /),
      fields: [{ field: "conformsTo", message: expect.any(String) }],
      values: { conformsTo: "not a url" },
    });
  });

  it("publishes and redirects to the new dataset; a second publish of the id marks id (409)", async () => {
    const fields = { id: "route-test-ok", title: "Route test dataset", keywords: "a, b" };
    const created = await publish("clinic", fields);
    expect(created).toBeInstanceOf(Response);
    expect((created as Response).status).toBe(302);
    expect((created as Response).headers.get("location")).toBe("/catalogue/route-test-ok?created=1");
    expect(await h.context.services.catalogue.get("route-test-ok")).toMatchObject({
      title: "Route test dataset",
      keywords: ["a", "b"],
      holder: "alphaklinik-berlin",
    });
    const again = await publish("clinic", fields);
    expect(again).toMatchObject({
      error: "A dataset or node with id route-test-ok already exists",
      fields: [{ field: "id" }],
    });
  });

  it("makes the identifier from the title when it is left empty", async () => {
    const r = await publish("clinic", { id: "", title: "Heart failure registry Berlin 2025" });
    expect(r).toBeInstanceOf(Response);
    expect((r as Response).headers.get("location")).toBe(
      "/catalogue/heart-failure-registry-berlin-2025?created=1",
    );
    expect((await h.context.services.catalogue.get("heart-failure-registry-berlin-2025"))?.title).toBe(
      "Heart failure registry Berlin 2025",
    );
  });
});
