import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSET_FIELDS_REQUIRED } from "../../../server/dataspace/assets";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { requireUser } from "../../session.server";
import { actingParticipant } from "../../lib/dataspace/access.server";
import { action } from "./route";

/** /share: the asset form marks the fields the dataspace service (or the form's own checks) names. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const register = async (fields: Record<string, string>) =>
  action({ request: await h.post("clinic", "/share", fields), context: h.context, params: {} });

const assetIds = async () => {
  const user = await requireUser(await h.request("clinic", "/share"), h.context);
  const ds = h.context.services.dataspace;
  const acting = await actingParticipant(ds, user, null, "DATA_HOLDER");
  return (await ds.listAssets(acting.participantId!)).map((a) => String(a["@id"]));
};

describe("share action", () => {
  it("an asset without a name: the spec's text, name named, the values kept, nothing registered", async () => {
    const before = await assetIds();
    const r = await register({ assetId: "route-test-unnamed", name: "", description: "d" });
    expect(r).toMatchObject({
      error: ASSET_FIELDS_REQUIRED,
      fields: [{ field: "name", message: "Required" }],
      values: { assetId: "route-test-unnamed", description: "d" },
    });
    expect(await assetIds()).toEqual(before);
  });

  it("a malformed asset id and a data address without an http(s) URL each name their field", async () => {
    expect(await register({ assetId: "-bad id", name: "A" })).toMatchObject({
      error: expect.stringMatching(/^The asset id may hold letters/),
      fields: [{ field: "assetId" }],
    });
    expect(
      await register({ assetId: "route-test-http", name: "A", addressMode: "http", baseUrl: "ftp://x" }),
    ).toMatchObject({
      error: "The data address needs an http(s) base URL.",
      fields: [{ field: "baseUrl" }],
    });
  });
});
