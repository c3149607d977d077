import { afterAll, describe } from "vitest";
import { CREDENTIAL_TYPES } from "../../server/local-dataspace/issuer";
import type { LocalDataspace } from "../../server/local-dataspace";
import { startTestDataspace } from "../support/local-dataspace";
import { identityHubContract } from "./identity-hub.contract";

let local: LocalDataspace | undefined;
afterAll(() => local?.close());

// the hub's identity hub client built as the hub builds it (reconnect.ts upstreamClients): URL and API key
describe("Identity hub contract: the embedded development dataspace", () => {
  identityHubContract(async () => {
    local = await startTestDataspace();
    return {
      options: { baseUrl: local.identityHubUrl, apiKey: local.identityHubApiKey, timeoutMs: 5000 },
      holder: "alphaklinik-berlin",
      issuerDid: local.issuerDid,
      credential: { id: "credential-definition-data-processing-purpose", type: CREDENTIAL_TYPES.purpose },
    };
  });
});

// A holder's real IdentityHub 0.15.1 (not in `npm test`: scripts/real-systems/issuer-service.mjs starts
// one beside the IssuerService it asks for credentials): its identity API, an admin's key, the holder's
// context, the issuer's DID and a credential definition (`id:type`)
const env = process.env;
describe.runIf(!!env.IDENTITY_HUB_CONTRACT_URL && !!env.IDENTITY_HUB_CONTRACT_API_KEY)(
  "Identity hub contract: a real EDC IdentityHub",
  () => {
    identityHubContract(async () => {
      const [id, type] = (env.IDENTITY_HUB_CONTRACT_CREDENTIAL ?? "").split(":");
      return {
        options: {
          baseUrl: env.IDENTITY_HUB_CONTRACT_URL!,
          apiKey: env.IDENTITY_HUB_CONTRACT_API_KEY!,
          timeoutMs: 15_000,
        },
        holder: env.IDENTITY_HUB_CONTRACT_CONTEXT ?? "holder",
        issuerDid: env.IDENTITY_HUB_CONTRACT_ISSUER_DID!,
        credential: { id: id!, type: type! },
      };
    });
  },
);
