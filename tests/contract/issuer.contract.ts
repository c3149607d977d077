import { beforeAll, expect, it } from "vitest";
import { encodeContextId, querySpec } from "../../server/dataspace-protocol";
import {
  createIssuerClient,
  type IssuerClient,
  type IssuerClientOptions,
} from "../../server/dataspace/issuer-client";
import { apiKeyContract } from "./api-key.contract";

/**
 * What the hub's issuer client counts on from the issuer service's admin API
 * (`POST /v1alpha/participants/{issuer}/credentials/query`, a QuerySpec as EDC IdentityHub's
 * IssuerCredentialsAdminApiController takes it): `filterExpression` on the record's `id`, on
 * `verifiableCredential.credential.id` and on `holderId`, and `offset`/`limit` that page through the
 * issued credentials in a stable order; each record with an id of its own (not its credential's:
 * IssuanceProcessManagerImpl and JwtCredentialGenerator each draw a UUID), which revocation and the
 * status read take (`/credentials/{id}/revoke`, `/credentials/{id}/status`, CredentialStatusResponse).
 * The issuer must have issued at least three credentials.
 */
export interface IssuerTarget {
  /** the hub's issuer client as the hub is configured for this issuer: its URL, context and API key */
  options: IssuerClientOptions;
  /**
   * whether revocation and the status read work: IssuerService 0.15.1 answers 404 for every record
   * whose status list its local publisher published (BitstringStatusListFactory looks the status list
   * credential up by its URL as a record id; fixed in 0.16.0, eclipse-edc/IdentityHub#899)
   */
  revocation: boolean;
}

export function issuerContract(setup: () => Promise<IssuerTarget>): void {
  let target: IssuerTarget;
  let issuer: IssuerClient;
  const base = () =>
    `${target.options.baseUrl}/v1alpha/participants/${encodeContextId(target.options.issuerContextId)}`;
  beforeAll(async () => {
    target = await setup();
    issuer = createIssuerClient(target.options);
  });

  /** the issuer's answer to a QuerySpec, as sent */
  async function query(spec: Parameters<typeof querySpec>[0]): Promise<{ id: string }[]> {
    const res = await fetch(`${base()}/credentials/query`, {
      method: "POST",
      headers: { "x-api-key": target.options.apiKey!, "content-type": "application/json" },
      body: JSON.stringify(querySpec(spec)),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { id: string }[];
  }
  const credentials = () => issuer.listCredentials(undefined);
  type Issued = Awaited<ReturnType<typeof credentials>>[number];
  const vcId = (c: Issued) => String(c.credential.id);
  const subjectOf = (c: Issued) => {
    const s = c.credential.credentialSubject;
    return (Array.isArray(s) ? s[0] : s)?.id as string | undefined;
  };
  /** the last credential issued to a DID (not a status list credential the issuer keeps alongside) */
  const lastIssued = async () => (await credentials()).findLast((c) => subjectOf(c)?.startsWith("did:"))!;

  apiKeyContract("issuer", () => ({
    options: target.options,
    call: (options) => createIssuerClient({ ...target.options, ...options }).listCredentialDefinitions(),
    request: (headers) =>
      fetch(`${base()}/credentials/query`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: "{}",
      }),
  }));

  it("finds one issued credential by its record id (filterExpression on id), none for an unknown id", async () => {
    const all = await credentials();
    expect(all.length).toBeGreaterThan(2);
    const last = all[all.length - 1];
    expect(await issuer.getCredential(last.id)).toEqual(last);
    expect(
      await query({
        limit: 10,
        filterExpression: [{ operandLeft: "id", operator: "=", operandRight: last.id }],
      }),
    ).toEqual([last]);
    expect(await issuer.getCredential("00000000-0000-0000-0000-000000000000")).toBeUndefined();
  });

  it("pages by offset and limit: the pages join to the whole list in the same order", async () => {
    const all = await query({ limit: 1000 });
    expect(all.length).toBeGreaterThan(2);
    const pages = [];
    for (let offset = 0; offset < all.length; offset += 2) pages.push(...(await query({ offset, limit: 2 })));
    expect(pages).toEqual(all);
    expect(await query({ offset: all.length, limit: 2 })).toEqual([]);
    expect(await credentials()).toEqual(all);
  });

  it("filters by holderId", async () => {
    const all = await credentials();
    const holder = subjectOf(await lastIssued());
    const held = await issuer.listCredentials(holder);
    expect(held.length).toBeGreaterThan(0);
    expect(held).toEqual(all.filter((c) => subjectOf(c) === holder));
  });

  it("keeps each credential as a record with an id of its own, found by either id", async () => {
    const all = await credentials();
    for (const c of all) expect([c.id, `urn:uuid:${c.id}`]).not.toContain(vcId(c));
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    const last = all[all.length - 1];
    expect(
      await query({
        limit: 10,
        filterExpression: [
          { operandLeft: "verifiableCredential.credential.id", operator: "=", operandRight: vcId(last) },
        ],
      }),
    ).toEqual([last]);
    expect(await issuer.getCredential(vcId(last))).toEqual(last);
  });

  it("revokes and reads the status by the record id, not by the credential's", async (t) => {
    if (!target.revocation) t.skip();
    const c = await lastIssued();
    expect(await issuer.credentialStatus(c.id)).toEqual({ credentialId: c.id, status: null, reason: null });
    await expect(issuer.revokeCredential(vcId(c))).rejects.toMatchObject({ status: 404 });
    await expect(issuer.credentialStatus(vcId(c))).rejects.toMatchObject({ status: 404 });
    await issuer.revokeCredential(c.id);
    expect(await issuer.credentialStatus(c.id)).toEqual({
      credentialId: c.id,
      status: "revocation",
      reason: null,
    });
    // revoking again changes nothing
    await issuer.revokeCredential(c.id);
    expect(await issuer.credentialStatus(c.id)).toMatchObject({ status: "revocation" });
  });
}
