import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSET_FIELDS_REQUIRED, POLICY_NOT_HELD } from "../../../server/dataspace/assets";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { requireUser } from "../../session.server";
import { actingParticipant } from "../../lib/dataspace/access.server";
import { action, loader } from "./route";

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

  it("offers the participant's policies (the policies page's list), and none", async () => {
    const data = await loader({
      request: await h.request("clinic", "/share"),
      context: h.context,
      params: {},
    });
    expect(data.policies).toEqual(
      expect.arrayContaining(["policy-dataspace-members", "policy-secondary-use"]),
    );
  });

  it("with a policy: registered and offered under it (the redirect says which); without one: the redirect claims no offer", async () => {
    const offered = await register({
      assetId: "route-test-offered",
      name: "O",
      policyId: "policy-secondary-use",
    });
    expect(offered).toBeInstanceOf(Response);
    expect((offered as Response).headers.get("location")).toBe(
      "/share?created=route-test-offered&offered=policy-secondary-use",
    );
    const entries = await h.context.services.audit.list({ limit: 100 });
    expect(entries.map((e) => e.target)).toContain(
      "alphaklinik-berlin: route-test-offered (offered as route-test-offered-offer under policy-secondary-use)",
    );

    const plain = await register({ assetId: "route-test-plain", name: "P", policyId: "" });
    expect((plain as Response).headers.get("location")).toBe("/share?created=route-test-plain");
    expect(await assetIds()).toEqual(expect.arrayContaining(["route-test-offered", "route-test-plain"]));
  });

  it("a policy the participant does not hold: its text, policyId named, the values kept, nothing registered", async () => {
    const before = await assetIds();
    const r = await register({ assetId: "route-test-no-policy", name: "N", policyId: "no-such-policy" });
    expect(r).toMatchObject({
      error: POLICY_NOT_HELD("alphaklinik-berlin", "no-such-policy"),
      fields: [{ field: "policyId" }],
      values: { assetId: "route-test-no-policy", policyId: "no-such-policy" },
    });
    expect(await assetIds()).toEqual(before);
  });
});
