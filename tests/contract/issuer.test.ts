import { afterAll, describe } from "vitest";
import type { LocalDataspace } from "../../server/local-dataspace";
import { startTestDataspace } from "../support/local-dataspace";
import { issuerContract } from "./issuer.contract";

let local: LocalDataspace | undefined;
afterAll(() => local?.close());

// the hub's issuer client built as the hub builds it (reconnect.ts upstreamClients): URL, context, API key
describe("Issuer contract: the embedded development dataspace", () => {
  issuerContract(async () => {
    local = await startTestDataspace();
    return {
      options: {
        baseUrl: local.issuerUrl,
        issuerContextId: local.issuerContextId,
        apiKey: local.issuerApiKey,
        timeoutMs: 5000,
      },
      revocation: true,
    };
  });
});

// A real IssuerService (not in `npm test`: scripts/real-systems/issuer-service.mjs starts one, decision
// 0095): its admin API's base URL, the issuer's participant context and that context's API key, given to
// the hub's client as ISSUER_URL and ISSUER_API_KEY would be
const env = process.env;
describe.runIf(!!env.ISSUER_CONTRACT_URL && !!env.ISSUER_CONTRACT_API_KEY)(
  "Issuer contract: a real EDC IssuerService",
  () => {
    issuerContract(async () => ({
      options: {
        baseUrl: env.ISSUER_CONTRACT_URL!,
        issuerContextId: env.ISSUER_CONTRACT_CONTEXT ?? "issuer",
        apiKey: env.ISSUER_CONTRACT_API_KEY!,
        timeoutMs: 15_000,
      },
      revocation: env.ISSUER_CONTRACT_REVOCATION === "on",
    }));
  },
);
