import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createIdentityHubClient } from "./identity-hub-client";
import { createIssuerClient, ISSUER_PAGE } from "./issuer-client";

/**
 * The issuer client's paging against an issuer that pages, and one that ignores the offset, and how it and the
 * identity hub's client authenticate (real HTTP).
 */
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

describe("the issuer's and the identity hub's clients authenticate by API key (decision 0114)", () => {
  const HELD = "/v1alpha/participants/aG9sZGVy/credentials";
  const asked: string[] = [];
  const tokens = {
    token: async () => {
      asked.push("token");
      return "management-token";
    },
  };
  const sent = () =>
    upstream.requests.map((r) => ({ key: r.headers["x-api-key"], authorization: r.headers.authorization }));
  const clients = (options: { apiKey?: string; tokens?: typeof tokens }) => {
    const common = { baseUrl: upstream.url, timeoutMs: 2_000, ...options };
    return [
      () => createIssuerClient({ ...common, issuerContextId: "issuer" }).listCredentials(),
      () => createIdentityHubClient(common).listCredentials("holder"),
    ];
  };

  it("with a key: x-api-key on every call, no Authorization, and no token asked for", async () => {
    upstream.reset();
    asked.length = 0;
    upstream.on("POST", QUERY, { json: [] }).on("GET", HELD, { json: [] });
    for (const call of clients({ apiKey: "aXNzdWVy.c2VjcmV0", tokens })) await call();
    expect(sent()).toEqual([
      { key: "aXNzdWVy.c2VjcmV0", authorization: undefined },
      { key: "aXNzdWVy.c2VjcmV0", authorization: undefined },
    ]);
    expect(asked).toEqual([]);
  });

  it("without one: the management token as a bearer token, no x-api-key", async () => {
    upstream.reset();
    asked.length = 0;
    upstream.on("POST", QUERY, { json: [] }).on("GET", HELD, { json: [] });
    for (const call of clients({ tokens })) await call();
    expect(sent()).toEqual([
      { key: undefined, authorization: "Bearer management-token" },
      { key: undefined, authorization: "Bearer management-token" },
    ]);
  });

  it("a refusal is the upstream's 401, not a retry with other credentials", async () => {
    upstream.reset();
    upstream.on("POST", QUERY, {
      status: 401,
      json: [{ message: "Invalid API token", type: "AuthenticationFailed", path: null, invalidValue: null }],
    });
    const [issuer] = clients({ apiKey: "aXNzdWVy.d3Jvbmc=", tokens });
    await expect(issuer!()).rejects.toMatchObject({
      upstream: "issuer",
      failure: "status",
      status: 401,
      message: "issuer answered HTTP 401: Invalid API token",
    });
    expect(upstream.requests).toHaveLength(1);
  });
});
