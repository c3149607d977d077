import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { createCredentialService, type CredentialService } from "../../server/credentials/service";
import type { EncodedBody } from "../../server/http/node-adapter";
import { type JsonBody, localDataspaceHarness, user } from "./dataspace-local.support";

/**
 * GET /api/credentials is kept as text per caller class while what it was made from holds
 * (server/credentials/service.ts listBody): the same bytes as the list verified afresh at the same
 * time, for every caller class; callers kept apart; a revocation or an issuance through this server
 * shows at the next read; a time past a validity end is not answered from a listing verified before
 * it. The definitions and a participant's credentials are encoded once per answer of the issuer or
 * identity hub. Against the embedded dataspace (real HTTP, real signatures).
 */

const h = localDataspaceHarness();
const textOf = async (body: Promise<EncodedBody>) => (await body).toString();
const PHARMACO_DID = "did:web:pharmaco.de:research";

let service: CredentialService | undefined;
const credentials = () =>
  (service ??= createCredentialService({
    config: loadConfig({ NODE_ENV: "test", UPSTREAM_TIMEOUT_MS: "3000" }),
    dataspace: h.ds,
  }));

/** the listing as sent and the listing verified afresh, at the same time */
async function both(persona: string, participantId?: string, now = new Date()) {
  const s = credentials();
  const text = await textOf(s.listBody(user(persona), participantId, now));
  return { text, fresh: JSON.stringify(await s.list(user(persona), participantId, now)) };
}

const CALLERS: [string, string | undefined][] = [
  ["admin", undefined],
  ["regulator", undefined],
  ["researcher", undefined],
  ["clinic", undefined],
  ["admin", "lmc"],
  ["trustcenter", undefined],
];

describe("the credential listing kept as text", () => {
  it("is the list verified afresh, byte for byte, for every caller class, kept or not", async () => {
    const t0 = new Date();
    for (const [persona, participantId] of CALLERS) {
      const first = await both(persona, participantId, t0);
      expect(first.text, `${persona} ${participantId ?? ""}`).toBe(first.fresh);
      // from the kept listing, at another time: only checkedAt differs
      const later = await both(persona, participantId, new Date(t0.getTime() + 1500));
      expect(later.text, `${persona} ${participantId ?? ""} later`).toBe(later.fresh);
      if (first.text !== "[]") expect(later.text).not.toBe(first.text);
    }
    const all = JSON.parse((await both("admin")).text) as JsonBody[];
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(all.every((c) => c.verification.verified === true)).toBe(true);
  });

  it("keeps callers apart: each sees its own organisation's credentials after another's were kept", async () => {
    const s = credentials();
    const all = JSON.parse(await textOf(s.listBody(user("admin")))) as JsonBody[];
    const holders = new Set(all.map((c) => c.credentialSubject.id));
    expect(holders.size).toBeGreaterThan(2);
    const researcher = JSON.parse(await textOf(s.listBody(user("researcher")))) as JsonBody[];
    expect(researcher.length).toBeGreaterThan(0);
    expect(researcher.every((c) => c.credentialSubject.id === PHARMACO_DID)).toBe(true);
    const clinic = JSON.parse(await textOf(s.listBody(user("clinic")))) as JsonBody[];
    expect(clinic.length).toBeGreaterThan(0);
    expect(clinic.every((c) => c.participantContextId === "alphaklinik-berlin")).toBe(true);
    expect(await textOf(s.listBody(user("trustcenter")))).toBe("[]");
    await expect(textOf(s.listBody(user("researcher"), "lmc"))).rejects.toMatchObject({ status: 403 });
  });

  it("shows a revocation through this server at the next read, and an issuance once issued", async () => {
    const s = credentials();
    const before = JSON.parse(await textOf(s.listBody(user("researcher")))) as JsonBody[];
    const target = before[0];
    expect(target.status).toBe("valid");
    await textOf(s.listBody(user("admin")));
    await s.revoke(target.id, user("regulator"));
    for (const persona of ["researcher", "admin"]) {
      const { text, fresh } = await both(persona);
      expect(text).toBe(fresh);
      const after = (JSON.parse(text) as JsonBody[]).find((c) => c.id === target.id);
      expect(after, persona).toMatchObject({
        status: "revoked",
        verification: { checks: { revocation: { ok: false } } },
      });
    }

    await s.request("pharmaco", "DataQualityLabelCredential", user("researcher"));
    const issued = await h.until(
      async () => JSON.parse(await textOf(s.listBody(user("researcher")))) as JsonBody[],
      (list) => list.some((c) => c.type.includes("DataQualityLabelCredential")),
    );
    expect(issued.find((c) => c.type.includes("DataQualityLabelCredential"))).toMatchObject({
      status: "valid",
    });
    const { text, fresh } = await both("researcher");
    expect(text).toBe(fresh);
  });

  it("is not answered from a listing verified before a validity end, nor after it for a time before", async () => {
    const now = new Date();
    const kept = await both("admin", undefined, now);
    expect(kept.text).toBe(kept.fresh);
    // three years on: every credential (valid one year) has expired, its JWT too
    const later = new Date(now.getTime() + 3 * 365 * 86_400_000);
    const expired = await both("admin", undefined, later);
    expect(expired.text).toBe(expired.fresh);
    const list = JSON.parse(expired.text) as JsonBody[];
    expect(list.every((c) => c.status === "unverified")).toBe(true);
    expect(list[0].verification.checks.signature.detail).toBe("the signed credential has expired");
    // and back: valid again
    const again = await both("admin", undefined, new Date(now.getTime() + 1000));
    expect(again.text).toBe(again.fresh);
    expect((JSON.parse(again.text) as JsonBody[]).some((c) => c.status === "valid")).toBe(true);
  });
});

describe("the definitions and a participant's credentials, encoded once", () => {
  it("are the answers built afresh, and the same body while the upstream answer is the same", async () => {
    const s = credentials();
    const defs = await s.definitionsBody();
    expect(defs.toString()).toBe(JSON.stringify(await s.definitions()));
    expect(await s.definitionsBody()).toBe(defs);

    const held = await h.ds.participantCredentialsBody("lmc");
    expect(held.toString()).toBe(JSON.stringify(await h.ds.participantCredentials("lmc")));
    expect(await h.ds.participantCredentialsBody("lmc")).toBe(held);
    // another participant's are its own
    const alpha = await h.call("GET /api/participants/:id/credentials", {
      params: { id: "alphaklinik-berlin" },
    });
    expect(alpha.body.every((c: JsonBody) => c.credentialSubject.id !== "did:web:lmc.nl:participant")).toBe(
      true,
    );
    expect((await h.call("GET /api/participants/:id/credentials", { params: { id: "nobody" } })).status).toBe(
      404,
    );
  });

  it("shows an issuance through this server in the participant's credentials", async () => {
    const before = await h.ds.participantCredentials("lmc");
    await h.ds.requestCredential("lmc", "DataQualityLabelCredential", "admin");
    const after = await h.until(
      () => h.ds.participantCredentials("lmc"),
      (list) => list.length > before.length,
    );
    expect(after.length).toBe(before.length + 1);
    const body = await h.ds.participantCredentialsBody("lmc");
    expect(body.toString()).toBe(JSON.stringify(after));
  });
});
