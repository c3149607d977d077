import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ASSET_FIELDS_REQUIRED,
  ASSET_NOT_HELD,
  NO_HUB_OFFER,
  OFFERED_ALREADY,
  POLICY_NOT_HELD,
  POLICY_REQUIRED,
} from "../../../server/dataspace/assets";
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

describe("share: an asset's offers", () => {
  const load = async (persona = "clinic") =>
    loader({ request: await h.request(persona, "/share"), context: h.context, params: {} });
  const offersOf = async (assetId: string) => (await load()).assets.find((a) => a.id === assetId)?.offers;
  const change = async (fields: Record<string, string>, persona = "clinic") =>
    action({ request: await h.post(persona, "/share", fields), context: h.context, params: {} });
  const auditTargets = async (action: string) =>
    (await h.context.services.audit.list({ limit: 200 }))
      .filter((e) => e.action === action)
      .map((e) => e.target);

  it("each asset says under which policies it is offered: the hub's offer made at registration or seeded, none without a policy", async () => {
    await register({ assetId: "route-offer-a", name: "A", policyId: "policy-dataspace-members" });
    await register({ assetId: "route-offer-b", name: "B", policyId: "" });
    expect(await offersOf("route-offer-a")).toEqual([
      { definitionId: "route-offer-a-offer", policyId: "policy-dataspace-members", byHub: true },
    ]);
    expect(await offersOf("route-offer-b")).toEqual([]);
    // the embedded seed offers its demonstration assets as the hub does, so that they can be withdrawn
    expect(await offersOf("fhir-cohort-bundle")).toEqual([
      { definitionId: "fhir-cohort-bundle-offer", policyId: "policy-secondary-use", byHub: true },
    ]);
    expect((await load()).offersError).toBeNull();
  });

  it("a data holder offers an asset the hub does not offer yet under a policy, and withdraws that offer: a message each, audited", async () => {
    expect(
      await change({ intent: "offer", assetId: "route-offer-b", policyId: "policy-dataspace-members" }),
    ).toEqual({
      intent: "offer",
      assetId: "route-offer-b",
      policyId: "policy-dataspace-members",
      fields: [],
      ok: "Asset route-offer-b is now offered in your catalogue under policy policy-dataspace-members.",
    });
    expect(await offersOf("route-offer-b")).toEqual([
      { definitionId: "route-offer-b-offer", policyId: "policy-dataspace-members", byHub: true },
    ]);
    expect(
      await change({ intent: "offer", assetId: "route-offer-b", policyId: "policy-secondary-use" }),
    ).toMatchObject({
      error: OFFERED_ALREADY("route-offer-b"),
    });

    expect(await change({ intent: "withdraw", assetId: "route-offer-b" })).toMatchObject({
      intent: "withdraw",
      ok: "The hub's offer of asset route-offer-b is withdrawn.",
    });
    expect(await offersOf("route-offer-b")).toEqual([]);
    expect(await change({ intent: "withdraw", assetId: "route-offer-b" })).toMatchObject({
      error: NO_HUB_OFFER("route-offer-b"),
    });
    expect(await auditTargets("asset.offer")).toContain(
      "alphaklinik-berlin: route-offer-b (offered as route-offer-b-offer under policy-dataspace-members)",
    );
    expect(await auditTargets("asset.offer.withdraw")).toContain(
      "alphaklinik-berlin: route-offer-b (withdrew route-offer-b-offer)",
    );
  });

  it("bad input is a message in the asset's row, the field named, and changes nothing", async () => {
    const cases: [Record<string, string>, string, string | undefined][] = [
      [{ policyId: "" }, POLICY_REQUIRED, "policyId"],
      [{ policyId: "no-such-policy" }, POLICY_NOT_HELD("alphaklinik-berlin", "no-such-policy"), "policyId"],
      [{ assetId: "no-such-asset" }, ASSET_NOT_HELD("alphaklinik-berlin", "no-such-asset"), undefined],
    ];
    for (const [fields, error, field] of cases) {
      const r = await change({
        intent: "offer",
        assetId: "route-offer-b",
        policyId: "policy-dataspace-members",
        ...fields,
      });
      expect(r, error).toMatchObject({ intent: "offer", error });
      expect((r as { fields: { field: string }[] }).fields.map((f) => f.field)).toEqual(field ? [field] : []);
    }
    expect(await offersOf("route-offer-b")).toEqual([]);
    expect(
      await h.context.services.dataspace
        .offersOf("alphaklinik-berlin", ["no-such-asset"])
        .then((o) => o["no-such-asset"]),
    ).toEqual([]);
  });

  it("only a data holder changes offers: a data user is refused (403), the offer stays", async () => {
    const refused = await change({ intent: "withdraw", assetId: "route-offer-a" }, "researcher").catch(
      (e) => e,
    );
    expect((refused as Response).status).toBe(403);
    expect(await offersOf("route-offer-a")).toEqual(
      expect.arrayContaining([expect.objectContaining({ byHub: true })]),
    );
  });
});
