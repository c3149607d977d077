import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createIssuerClient, ISSUER_PAGE } from "./issuer-client";

/** The issuer client's paging against an issuer that pages, and one that ignores the offset (real HTTP). */
const record = (i: number) => ({
  id: `record-${i}`,
  credential: {
    type: "VerifiableCredential",
    issuer: "did:web:issuer",
    credentialSubject: { id: "did:web:x" },
  },
});
const QUERY = "/v1alpha/participants/aXNzdWVy/credentials/query";

let upstream: UpstreamDouble;
beforeAll(async () => {
  upstream = await startUpstreamDouble();
});
afterAll(() => upstream.close());
const client = () =>
  createIssuerClient({ baseUrl: upstream.url, issuerContextId: "issuer", timeoutMs: 2_000 });

describe("the issuer client's listing", () => {
  it("reads every page, offset by offset, until a short page", async () => {
    upstream.reset();
    const total = ISSUER_PAGE + 3;
    upstream.on("POST", QUERY, {
      reply: ({ body }) => {
        const { offset, limit } = body as { offset: number; limit: number };
        return {
          json: Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) =>
            record(offset + i),
          ),
        };
      },
    });
    const all = await client().listCredentials();
    expect(all.map((r) => r.id)).toEqual(Array.from({ length: total }, (_, i) => `record-${i}`));
    expect(upstream.received("POST", QUERY)).toHaveLength(2);
  });

  it("stops with an error, not a loop, when the issuer ignores the offset", async () => {
    upstream.reset();
    upstream.on("POST", QUERY, { json: Array.from({ length: ISSUER_PAGE }, (_, i) => record(i)) });
    await expect(client().listCredentials()).rejects.toThrow(/ignores the query's offset/);
    expect(upstream.received("POST", QUERY)).toHaveLength(2);
  });
});
