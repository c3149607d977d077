import { describe } from "vitest";
import { buildContractDefinition } from "../../server/dataspace/assets";
import { createConnectorClient, type ConnectorClient } from "../../server/dataspace/connector-client";
import { createClientCredentialsSource } from "../../server/dataspace/oauth-token";
import { startTestDataspace } from "../support/local-dataspace";
import { connectorContract } from "./connector.contract";

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const r = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status} ${await r.text()}`);
}

describe("Connector contract: the embedded development dataspace", () => {
  connectorContract(async (servers) => {
    const local = await startTestDataspace({
      // the provider's data: what the asset's source serves (a real EDC reads its baseUrl itself)
      dataSource: async (assetId) => (await fetch(`${servers.sourceUrl}/assets/${assetId}`)).json(),
    });
    const tokens = createClientCredentialsSource({
      tokenUrl: local.tokenUrl,
      clientId: local.clientId,
      clientSecret: local.clientSecret,
      timeoutMs: 5000,
    });
    const client: ConnectorClient = createConnectorClient({
      managementUrl: local.managementUrl,
      apiVersion: local.apiVersion,
      timeoutMs: 5000,
      tokens,
    });
    const providerId = "alphaklinik-berlin";
    const provider = await client.getParticipantContext(providerId);
    return {
      provider: { client, contextId: providerId, did: String(provider.participantId ?? provider.identity) },
      consumer: { client, contextId: "pharmaco" },
      providerAddress: `${local.protocolBaseUrl}/${providerId}/2025-1`,
      offer: async (assetId, policyId) =>
        post(
          `${local.managementUrl}/${local.apiVersion}/participants/${providerId}/contractdefinitions`,
          { authorization: `Bearer ${await tokens.token()}` },
          buildContractDefinition(assetId, policyId),
        ),
      cleanup: () => local.close(),
    };
  });
});

// The connector pass (scripts/real-systems/connector-pass.mjs) sets these: two EDC runtimes.
const env = process.env;
describe.runIf(!!env.EDC_PROVIDER_MANAGEMENT_URL && !!env.EDC_CONSUMER_MANAGEMENT_URL)(
  "Connector contract: real EDC connectors",
  () => {
    connectorContract(async () => {
      const client = (managementUrl: string, apiKey: string, participantId: string) =>
        createConnectorClient({
          managementUrl,
          apiVersion: "v4beta",
          timeoutMs: 15_000,
          apiKey,
          participantId,
        });
      return {
        provider: {
          client: client(env.EDC_PROVIDER_MANAGEMENT_URL!, env.EDC_PROVIDER_API_KEY!, env.EDC_PROVIDER_ID!),
          contextId: env.EDC_PROVIDER_ID!,
          did: env.EDC_PROVIDER_ID!,
        },
        consumer: {
          client: client(env.EDC_CONSUMER_MANAGEMENT_URL!, env.EDC_CONSUMER_API_KEY!, env.EDC_CONSUMER_ID!),
          contextId: env.EDC_CONSUMER_ID!,
        },
        providerAddress: `${env.EDC_PROVIDER_PROTOCOL_URL}/2025-1`,
        offer: (assetId, policyId) =>
          post(
            `${env.EDC_PROVIDER_MANAGEMENT_URL}/v4beta/contractdefinitions`,
            { "x-api-key": env.EDC_PROVIDER_API_KEY! },
            buildContractDefinition(assetId, policyId),
          ),
        cleanup: async () => {},
      };
    });
  },
);
