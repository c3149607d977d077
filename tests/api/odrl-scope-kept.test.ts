import { describe, expect, it } from "vitest";
import { seededInsightPerFile } from "../support/insight";
import type { SessionUser } from "../../server/auth/user";
import { computeEffectiveScope, effectiveScope } from "../../server/policies/scope";
import { type JsonBody, ALPHA_DID, localDataspaceHarness, user } from "./dataspace-local.support";

/**
 * GET /api/odrl/scope is kept per caller (server/policies/scope.ts effectiveScope, server/http/kept): the
 * same bytes as the scope computed afresh at the time it was built for every persona; callers kept apart; a
 * graph write, a negotiation finalised in the dataspace and a new day show at the next read.
 * Against a seeded graph and the embedded dataspace.
 */

const h = localDataspaceHarness();
const insight = seededInsightPerFile(40);

const deps = () => ({ graph: insight.graph, dataspace: h.ds });
const PERSONAS = ["researcher", "clinic", "lmc", "admin", "regulator", "trustcenter", "patient1"];

/** the kept scope, and the scope computed afresh at the time the kept one says it was computed */
async function both(u: SessionUser, now = new Date()) {
  const kept = await effectiveScope(deps(), u, now);
  const text = JSON.stringify(kept);
  return { text, fresh: JSON.stringify(await computeEffectiveScope(deps(), u, new Date(kept.computedAt))) };
}

describe("the ODRL scope kept", () => {
  it("is the scope computed afresh, byte for byte, for every persona, kept or not", async () => {
    const t0 = new Date();
    for (const persona of PERSONAS) {
      const first = await both(user(persona), t0);
      expect(first.text, persona).toBe(first.fresh);
      // the same day, nothing written: the kept answer as built, its time the build's
      const later = await both(user(persona), new Date(t0.getTime() + 1500));
      expect(later.text, `${persona} later`).toBe(first.text);
    }
  });

  it("keeps callers apart, down to the user name", async () => {
    const researcher = JSON.parse(
      JSON.stringify(await effectiveScope(deps(), user("researcher"))),
    ) as JsonBody;
    const other = { ...user("researcher"), username: "researcher-two", sub: "researcher-two" };
    const second = JSON.parse(JSON.stringify(await effectiveScope(deps(), other))) as JsonBody;
    expect(researcher.subject.username).toBe("researcher");
    expect(second.subject.username).toBe("researcher-two");
    const clinic = JSON.parse(JSON.stringify(await effectiveScope(deps(), user("clinic")))) as JsonBody;
    expect(clinic.standing).toContain("provider");
    expect(researcher.standing).not.toContain("provider");
    const patient = JSON.parse(JSON.stringify(await effectiveScope(deps(), user("patient1")))) as JsonBody;
    expect(patient.permissions).toEqual([expect.objectContaining({ policyId: "gdpr-art-15" })]);
  });

  it("shows a graph write at the next read", async () => {
    const before = JSON.parse(JSON.stringify(await effectiveScope(deps(), user("researcher")))) as JsonBody;
    const grant = before.grants.find((g: JsonBody) => g.effective);
    expect(grant).toBeDefined();
    await insight.graph.mutate(
      [{ op: "updateNode", id: grant.contractId, properties: { status: "suspended" } }],
      { action: "test.suspend", actor: "test", target: grant.contractId, kind: "graph" },
    );
    const { text, fresh } = await both(user("researcher"));
    expect(text).toBe(fresh);
    const after = (JSON.parse(text) as JsonBody).grants.find(
      (g: JsonBody) => g.contractId === grant.contractId,
    );
    expect(after).toMatchObject({ effective: false, reason: "contract is suspended" });
  });

  it("shows a new day's expiries", async () => {
    const now = new Date();
    await both(user("researcher"), now);
    const later = await both(user("researcher"), new Date(now.getTime() + 20 * 365 * 86_400_000));
    expect(later.text).toBe(later.fresh);
    expect((JSON.parse(later.text) as JsonBody).grants.some((g: JsonBody) => /^expired/.test(g.reason))).toBe(
      true,
    );
  });

  it("shows a negotiation the dataspace finalised at the next read", async () => {
    const before = JSON.parse(JSON.stringify(await effectiveScope(deps(), user("researcher")))) as JsonBody;
    expect(Array.isArray(before.dataspaceAgreements)).toBe(true);
    const { offerId } = await h.alphaOffer();
    const started = await h.call("POST /api/negotiations", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        counterPartyAddress: `${h.ds.local!.protocolBaseUrl}/`,
        counterPartyId: "alphaklinik-berlin",
        providerDid: ALPHA_DID,
        offerId,
        assetId: "fhir-cohort-bundle",
      },
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"] as string;
    // the embedded dataspace finalises it by itself: its change counter ends what was kept
    const after = await h.until(
      async () => JSON.parse(JSON.stringify(await effectiveScope(deps(), user("researcher")))) as JsonBody,
      (s) => s.dataspaceAgreements.some((a: JsonBody) => a.negotiationId === id),
    );
    expect(after.dataspaceAgreements.length).toBe(before.dataspaceAgreements.length + 1);
    expect(after.activeContract.count).toBe(before.activeContract.count + 1);
    const { text, fresh } = await both(user("researcher"));
    expect(text).toBe(fresh);
  });
});
