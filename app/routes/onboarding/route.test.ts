import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { action } from "./route";

/** /onboarding: the participant form marks the fields the dataspace service names. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const onboard = async (fields: Record<string, string>) =>
  action({ request: await h.post("admin", "/onboarding", fields), context: h.context, params: {} });

describe("onboarding action", () => {
  it("a missing display name: the spec's text, displayName named, the values kept", async () => {
    const r = await onboard({ displayName: "", role: "DATA_HOLDER", organization: "Org" });
    expect(r).toMatchObject({
      error: "displayName and role are required",
      fields: [{ field: "displayName", message: "Required" }],
      values: { organization: "Org" },
    });
  });

  it("an unknown role and a name with markup each name their field", async () => {
    expect(await onboard({ displayName: "Clinic Nord", role: "KING" })).toMatchObject({
      error: expect.stringMatching(/^role must be one of /),
      fields: [{ field: "role" }],
    });
    expect(await onboard({ displayName: "<script>", role: "DATA_HOLDER" })).toMatchObject({
      error: expect.stringMatching(/^displayName may contain only/),
      fields: [{ field: "displayName" }],
    });
    expect(
      await onboard({ displayName: "Clinic Nord", role: "DATA_HOLDER", ehdsParticipantType: "a b" }),
    ).toMatchObject({
      fields: [{ field: "ehdsParticipantType" }],
    });
  });
});
