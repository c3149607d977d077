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
 * `holderId`, and `offset`/`limit` that page through the issued credentials in a stable order.
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
});
