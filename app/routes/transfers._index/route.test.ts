import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { action } from "./route";

/** /transfers: the start form marks the contract agreement it cannot transfer under. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const start = async (fields: Record<string, string>) =>
  action({ request: await h.post("researcher", "/transfers", fields), context: h.context, params: {} });

describe("transfers action", () => {
  it("no agreement chosen: negotiationId is named", async () => {
    expect(await start({ negotiationId: "" })).toEqual({
      error: "Choose a contract agreement to transfer under.",
      detail: null,
      fields: [{ field: "negotiationId", message: "Choose a contract agreement to transfer under." }],
    });
  });

  it("an agreement the connector does not know: the API's text, negotiationId named, no transfer started", async () => {
    const r = await start({ negotiationId: "no-such-negotiation" });
    expect(r).toMatchObject({ fields: [{ field: "negotiationId" }] });
    expect((r as { error: string }).error).toBeTruthy();
  });
});
