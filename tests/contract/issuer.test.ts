import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeContextId, querySpec } from "../../server/dataspace-protocol";
import { createIssuerClient, type IssuerClient } from "../../server/dataspace/issuer-client";
import {
  createClientCredentialsSource,
  type ClientCredentialsSource,
} from "../../server/dataspace/oauth-token";
import { startLocalDataspace, type LocalDataspace } from "../../server/local-dataspace";

/**
 * What the hub's issuer client counts on from the issuer service's admin API
 * (`POST /v1alpha/participants/{issuer}/credentials/query`, a QuerySpec as EDC IdentityHub's
 * IssuerCredentialsAdminApiController takes it): `filterExpression` on the record's `id` and on
 * `holderId`, and `offset`/`limit` that page through the issued credentials in a stable order; each
 * record with an id of its own (not its credential's: IssuanceProcessManagerImpl and
 * JwtCredentialGenerator each draw a UUID), which revocation and the status read take
 * (`/credentials/{id}/revoke`, `/credentials/{id}/status`, CredentialStatusResponse).
 * Run against the embedded issuer; no pass runs a real issuer service (the EDC pass starts connectors
 * only).
 */

let local: LocalDataspace;
let tokens: ClientCredentialsSource;
let issuer: IssuerClient;

/** the issuer's answer to a QuerySpec, as sent */
async function query(spec: Parameters<typeof querySpec>[0]): Promise<{ id: string }[]> {
  const url = `${local.issuerUrl}/v1alpha/participants/${encodeContextId(local.issuerContextId)}/credentials/query`;
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${await tokens.token()}`, "content-type": "application/json" },
    body: JSON.stringify(querySpec(spec)),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string }[];
}

beforeAll(async () => {
  local = await startLocalDataspace({
    dataDir: ":memory:",
    stepMs: 20,
    dataSource: async () => ({}),
    onError: () => {},
  });
  tokens = createClientCredentialsSource({
    tokenUrl: local.tokenUrl,
    clientId: local.clientId,
    clientSecret: local.clientSecret,
    timeoutMs: 5000,
  });
  issuer = createIssuerClient({
    baseUrl: local.issuerUrl,
    issuerContextId: local.issuerContextId,
    timeoutMs: 5000,
    tokens,
  });
});
afterAll(() => local?.close());

describe("Issuer contract: the embedded development dataspace", () => {
  it("finds one issued credential by its record id (filterExpression on id), none for an unknown id", async () => {
    const all = await issuer.listCredentials(undefined);
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
    expect(await issuer.listCredentials(undefined)).toEqual(all);
  });

  it("filters by holderId", async () => {
    const all = await issuer.listCredentials(undefined);
    const holderOf = (c: (typeof all)[number]) => (c.credential.credentialSubject as { id?: string }).id;
    const held = await issuer.listCredentials(holderOf(all[0]));
    expect(held.length).toBeGreaterThan(0);
    expect(held).toEqual(all.filter((c) => holderOf(c) === holderOf(all[0])));
  });

  it("keeps each credential as a record with an id of its own, found by either id", async () => {
    const all = await issuer.listCredentials(undefined);
    const vcId = (c: (typeof all)[number]) => String(c.credential.id);
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

  it("revokes and reads the status by the record id, not by the credential's", async () => {
    const all = await issuer.listCredentials(undefined);
    const c = all[all.length - 1];
    expect(await issuer.credentialStatus(c.id)).toEqual({ credentialId: c.id, status: null, reason: null });
    await expect(issuer.revokeCredential(String(c.credential.id))).rejects.toMatchObject({ status: 404 });
    await expect(issuer.credentialStatus(String(c.credential.id))).rejects.toMatchObject({ status: 404 });
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
});
