import { afterAll, beforeAll, expect, it } from "vitest";
import type { ConnectorClient } from "../../server/dataspace/connector-client";
import { offeredRules } from "../../server/dataspace/catalog";
import { DSP_PROTOCOL, MANAGEMENT_CONTEXT } from "../../server/dataspace-protocol";
import { isNotFound } from "../../server/dataspace/upstream-http";

/**
 * What the hub's connector client may count on from a connector's management API, whichever
 * connector answers: the embedded development dataspace (server/local-dataspace) in the normal run,
 * a real EDC connector in the connector pass. The imitation must refuse what the real one refuses and
 * answer in the same shapes, or a mismatch hides behind it.
 */
export interface ConnectorUnderTest {
  provider: { client: ConnectorClient; contextId: string; did: string };
  consumer: { client: ConnectorClient; contextId: string };
  /** the provider's DSP 2025-1 address */
  providerAddress: string;
  /** offers `assetId` under `policyId` (a contract definition: the hub has no call for it) */
  offer(assetId: string, policyId: string): Promise<void>;
  cleanup(): Promise<void>;
}

const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
};

export function connectorContract(setup: () => Promise<ConnectorUnderTest>) {
  let c: ConnectorUnderTest;
  const stamp = Date.now().toString(36);
  const assetId = `contract-asset-${stamp}`;
  const policyId = `contract-policy-${stamp}`;

  beforeAll(async () => {
    c = await setup();
  });
  afterAll(async () => {
    await c?.cleanup();
  });

  const catalogRequest = () => ({
    "@context": [MANAGEMENT_CONTEXT],
    "@type": "CatalogRequest",
    counterPartyAddress: c.providerAddress,
    counterPartyId: c.provider.did,
    protocol: DSP_PROTOCOL,
  });
  const negotiate = async (policy: Record<string, unknown>) => {
    const { "@id": id } = await c.consumer.client.initiateNegotiation(c.consumer.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "ContractRequest",
      counterPartyAddress: c.providerAddress,
      protocol: DSP_PROTOCOL,
      policy,
    });
    return until(
      () => c.consumer.client.getNegotiation(c.consumer.contextId, id),
      (n) => n.state === "FINALIZED" || n.state === "TERMINATED",
    );
  };

  it("takes a management/v2 body: an asset and a Set policy without empty rule lists, then lists them", async () => {
    const created = await c.provider.client.createAsset(c.provider.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "Asset",
      "@id": assetId,
      properties: { name: "contract asset" },
      dataAddress: { "@type": "DataAddress", type: "HttpData", baseUrl: "http://127.0.0.1:9/data" },
    });
    expect(created["@id"]).toBe(assetId);
    const policy = await c.provider.client.createPolicyDefinition(c.provider.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "PolicyDefinition",
      "@id": policyId,
      policy: { "@type": "Set", permission: [{ action: "use" }] },
    });
    expect(policy["@id"]).toBe(policyId);
    const assets = await c.provider.client.listAssets(c.provider.contextId);
    expect(assets.map((a) => a["@id"])).toContain(assetId);
    await c.offer(assetId, policyId);
  });

  it("answers a catalogue request by the provider's DSP address with the asset and an offer", async () => {
    const catalog = await c.consumer.client.requestCatalog(c.consumer.contextId, catalogRequest());
    const rules = offeredRules(catalog, assetId, "");
    // no offer id given: no match by id; the dataset is there and carries offers
    expect(rules).toBeUndefined();
    const datasets = (catalog["dcat:dataset"] ?? catalog.dataset) as Record<string, unknown>[];
    const dataset = [datasets].flat().find((d) => d["@id"] === assetId);
    expect(dataset).toBeDefined();
  });

  it("agrees to a contract request whose policy is the offered one (FINALIZED, with an agreement)", async () => {
    const catalog = await c.consumer.client.requestCatalog(c.consumer.contextId, catalogRequest());
    const datasets = [(catalog["dcat:dataset"] ?? catalog.dataset) as Record<string, unknown>[]].flat();
    const dataset = datasets.find((d) => d["@id"] === assetId)!;
    const offer = [(dataset["odrl:hasPolicy"] ?? dataset.hasPolicy) as Record<string, unknown>[]].flat()[0]!;
    const rules = offeredRules(catalog, assetId, String(offer["@id"]));
    expect(rules).toEqual({ permission: [expect.objectContaining({})] });
    const n = await negotiate({
      "@type": "Offer",
      "@id": offer["@id"],
      assigner: c.provider.did,
      target: assetId,
      ...rules,
    });
    expect(n.state).toBe("FINALIZED");
    expect(typeof n.contractAgreementId).toBe("string");
    expect(n.protocol).toBe(DSP_PROTOCOL);
  });

  it("refuses a contract request whose policy differs from the offer (TERMINATED)", async () => {
    const catalog = await c.consumer.client.requestCatalog(c.consumer.contextId, catalogRequest());
    const datasets = [(catalog["dcat:dataset"] ?? catalog.dataset) as Record<string, unknown>[]].flat();
    const dataset = datasets.find((d) => d["@id"] === assetId)!;
    const offer = [(dataset["odrl:hasPolicy"] ?? dataset.hasPolicy) as Record<string, unknown>[]].flat()[0]!;
    const n = await negotiate({
      "@type": "Offer",
      "@id": offer["@id"],
      assigner: c.provider.did,
      target: assetId,
      permission: [{ action: "use" }],
      prohibition: [{ action: "distribute" }],
    });
    expect(n.state).toBe("TERMINATED");
  });

  it("answers 404 for a negotiation it does not hold", async () => {
    const e = await c.consumer.client.getNegotiation(c.consumer.contextId, `no-such-${stamp}`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isNotFound(e)).toBe(true);
  });
}
