import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEGOTIATION_FIELDS_REQUIRED } from "../../../server/dataspace/negotiations";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { action } from "./route";

/** /negotiate: the offer form marks the chosen offer when the service or the form refuses it. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const negotiate = async (fields: Record<string, string>) =>
  action({ request: await h.post("researcher", "/negotiate", fields), context: h.context, params: {} });

describe("negotiate action", () => {
  it("no offer chosen: the offer group is named", async () => {
    expect(await negotiate({ counterPartyAddress: "http://127.0.0.1:9/dsp" })).toEqual({
      error: "Choose one of the provider's offers first.",
      detail: null,
      fields: [{ field: "offer", message: "Choose one of the provider's offers first." }],
    });
  });

  it("reads its fields trimmed, as the other dataspace forms do: the own context with spaces around is the own", async () => {
    expect(
      await negotiate({ participant: " pharmaco ", counterPartyAddress: "http://127.0.0.1:9/dsp" }),
    ).toEqual({
      error: "Choose one of the provider's offers first.",
      detail: null,
      fields: [{ field: "offer", message: "Choose one of the provider's offers first." }],
    });
  });

  it("an offer without its asset and no DSP address: the spec's text, the service's fields as the form's", async () => {
    const r = await negotiate({ offer: JSON.stringify(["", "offer-1"]), counterPartyAddress: "" });
    expect(r).toMatchObject({
      error: NEGOTIATION_FIELDS_REQUIRED,
      fields: [
        { field: "counterPartyAddress", message: "Required" },
        { field: "offer", message: "Required" },
      ],
    });
  });
});
