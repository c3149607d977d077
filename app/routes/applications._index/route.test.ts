import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { requireUser } from "../../session.server";
import { action } from "./route";

/** /applications: the applicant's forms get the access body's field errors, not only its text. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const post = async (fields: Record<string, string>) =>
  action({ request: await h.post("researcher", "/applications", fields), context: h.context, params: {} });

describe("applications._index action", () => {
  it("an application without title and summary: the spec's text, and both fields named", async () => {
    const before = (await h.context.services.accessBody.listApplications(await researcher())).length;
    const r = await post({ intent: "apply", purpose: "scientificResearch", datasets: "x" });
    expect(r).toMatchObject({
      intent: "apply",
      error: "title, summary are required",
      fields: [
        { field: "title", message: "Required" },
        { field: "summary", message: "Required" },
      ],
    });
    expect((await h.context.services.accessBody.listApplications(await researcher())).length).toBe(before);
  });

  it("an unknown dataset names the datasets field", async () => {
    const r = await post({
      intent: "apply",
      title: "Field test",
      summary: "Why",
      purpose: "scientificResearch",
      datasets: "no-such-dataset",
    });
    expect(r).toMatchObject({
      error: "Unknown dataset: no-such-dataset (use an id of GET /api/catalog)",
      fields: [
        { field: "datasets", message: "Unknown dataset: no-such-dataset (use an id of GET /api/catalog)" },
      ],
    });
  });

  it("a data request without a question names it", async () => {
    const r = await post({
      intent: "request",
      title: "Counts",
      purpose: "scientificResearch",
      datasets: "x",
    });
    expect(r).toMatchObject({ intent: "request", fields: [{ field: "question", message: "Required" }] });
  });
});

const researcher = async () => requireUser(await h.request("researcher", "/applications"), h.context);
