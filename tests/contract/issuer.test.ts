import { afterAll, describe } from "vitest";
import { encodeContextId } from "../../server/dataspace-protocol";
import { createIssuerClient } from "../../server/dataspace/issuer-client";
import { createClientCredentialsSource } from "../../server/dataspace/oauth-token";
import { startLocalDataspace, type LocalDataspace } from "../../server/local-dataspace";
import { issuerContract } from "./issuer.contract";

let local: LocalDataspace | undefined;
afterAll(() => local?.close());

describe("Issuer contract: the embedded development dataspace", () => {
  issuerContract(async () => {
    local = await startLocalDataspace({
      dataDir: ":memory:",
      stepMs: 20,
      dataSource: async () => ({}),
      onError: () => {},
    });
    const tokens = createClientCredentialsSource({
      tokenUrl: local.tokenUrl,
      clientId: local.clientId,
      clientSecret: local.clientSecret,
      timeoutMs: 5000,
    });
    return {
      client: createIssuerClient({
        baseUrl: local.issuerUrl,
        issuerContextId: local.issuerContextId,
        timeoutMs: 5000,
        tokens,
      }),
      base: `${local.issuerUrl}/v1alpha/participants/${encodeContextId(local.issuerContextId)}`,
      headers: async () => ({ authorization: `Bearer ${await tokens.token()}` }),
      revocation: true,
    };
  });
});

// A real IssuerService (no pass starts one: docs/decisions/0095-issuer-record-ids.md has the recipe):
// its admin API's base URL, the issuer's participant context and that context's API key
const env = process.env;
describe.runIf(!!env.ISSUER_CONTRACT_URL && !!env.ISSUER_CONTRACT_API_KEY)(
  "Issuer contract: a real EDC IssuerService",
  () => {
    issuerContract(async () => {
      const headers = { "x-api-key": env.ISSUER_CONTRACT_API_KEY! };
      const contextId = env.ISSUER_CONTRACT_CONTEXT ?? "issuer";
      return {
        // the hub's client sends no x-api-key of its own: added here
        client: createIssuerClient({
          baseUrl: env.ISSUER_CONTRACT_URL!,
          issuerContextId: contextId,
          timeoutMs: 15_000,
          fetch: (url, init) => {
            const sent = new Headers(init?.headers);
            sent.set("x-api-key", headers["x-api-key"]);
            return fetch(url, { ...init, headers: sent });
          },
        }),
        base: `${env.ISSUER_CONTRACT_URL}/v1alpha/participants/${encodeContextId(contextId)}`,
        headers: async () => headers,
        revocation: env.ISSUER_CONTRACT_REVOCATION === "on",
      };
    });
  },
);
