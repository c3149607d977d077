import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { createCredentialService, type CredentialService } from "../../server/credentials/service";
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
const textOf = async (body: Promise<unknown>) => JSON.stringify(await body);
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
  const text = await textOf(s.list(user(persona), participantId, now));
  return { text, fresh: JSON.stringify(await s.list(user(persona), participantId, now)) };
}

describe("the credential listing kept as text", () => {
  it("keeps callers apart: each sees its own organisation's credentials after another's were kept", async () => {
    const s = credentials();
    const all = JSON.parse(await textOf(s.list(user("admin")))) as JsonBody[];
    const holders = new Set(all.map((c) => c.credentialSubject.id));
    expect(holders.size).toBeGreaterThan(2);
    const researcher = JSON.parse(await textOf(s.list(user("researcher")))) as JsonBody[];
    expect(researcher.length).toBeGreaterThan(0);
    expect(researcher.every((c) => c.credentialSubject.id === PHARMACO_DID)).toBe(true);
    const clinic = JSON.parse(await textOf(s.list(user("clinic")))) as JsonBody[];
    expect(clinic.length).toBeGreaterThan(0);
    expect(clinic.every((c) => c.participantContextId === "alphaklinik-berlin")).toBe(true);
    expect(await textOf(s.list(user("trustcenter")))).toBe("[]");
    await expect(textOf(s.list(user("researcher"), "lmc"))).rejects.toMatchObject({ status: 403 });
  });

  it("shows a revocation through this server at the next read, and an issuance once issued", async () => {
    const s = credentials();
    const before = JSON.parse(await textOf(s.list(user("researcher")))) as JsonBody[];
    const target = before[0];
    expect(target.status).toBe("valid");
    await textOf(s.list(user("admin")));
    await s.revoke(target.id, user("admin"));
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
      async () => JSON.parse(await textOf(s.list(user("researcher")))) as JsonBody[],
      (list) => list.some((c) => c.type.includes("DataQualityLabelCredential")),
    );
    expect(issued.find((c) => c.type.includes("DataQualityLabelCredential"))).toMatchObject({
      status: "valid",
    });
    const { text, fresh } = await both("researcher");
    expect(text).toBe(fresh);
  });
});
