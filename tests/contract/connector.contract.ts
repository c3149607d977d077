import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ConnectorClient } from "../../server/dataspace/connector-client";
import { offeredRules, summariseCatalog } from "../../server/dataspace/catalog";
import {
  DSP_PROTOCOL,
  DSPACE_CONTEXT,
  MANAGEMENT_CONTEXT,
  ODRL_CONTEXT,
  termsOfAsset,
  termsProperties,
} from "../../server/dataspace-protocol";
import { isNotFound, isUpstreamError } from "../../server/dataspace/upstream-http";
import { fromConnector } from "../../server/policies/policy-document";
import { buildContractDefinition } from "../../server/dataspace/assets";
import { until } from "../support/until";

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

/** what every asset's source holds (the contract's source server, or the embedded data source that reads it) */
export const SOURCE_DATA = { resourceType: "Bundle", type: "collection", total: 1, note: "from the source" };

/**
 * The data behind the contract's assets, over real HTTP: `GET /assets/{id}` answers SOURCE_DATA, except
 * for an asset whose id ends in `-held`, whose answer waits until `release()` (so a transfer of it stays
 * open); and a destination that records what is pushed to it.
 */
export interface ContractServers {
  sourceUrl: string;
  sinkUrl: string;
  received: string[];
  release(): void;
  close(): Promise<void>;
}

async function startServers(): Promise<ContractServers> {
  const held: ServerResponse[] = [];
  const received: string[] = [];
  const listen = async (handle: (req: IncomingMessage, res: ServerResponse) => void) => {
    const server = createServer(handle);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return server;
  };
  const answer = (res: ServerResponse) => {
    if (res.writableEnded) return;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(SOURCE_DATA));
  };
  const source = await listen((req, res) => {
    if (req.url?.endsWith("-held")) held.push(res);
    else answer(res);
  });
  const sink = await listen((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push(body);
      res.end();
    });
  });
  const url = (s: typeof source) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const release = () => held.splice(0).forEach(answer);
  return {
    sourceUrl: url(source),
    sinkUrl: url(sink),
    received,
    release,
    async close() {
      release();
      for (const s of [source, sink]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

export function connectorContract(setup: (servers: ContractServers) => Promise<ConnectorUnderTest>) {
  let c: ConnectorUnderTest;
  let servers: ContractServers;
  const stamp = Date.now().toString(36);
  const assetId = `contract-asset-${stamp}`;
  const heldAssetId = `contract-asset-${stamp}-held`;
  const policyId = `contract-policy-${stamp}`;
  const agreements: Record<string, string> = {};
  /** negotiations that reached FINALIZED */
  const finalised: string[] = [];

  beforeAll(async () => {
    servers = await startServers();
    c = await setup(servers);
  });
  afterAll(async () => {
    await c?.cleanup();
    await servers?.close();
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
      dataAddress: {
        "@type": "DataAddress",
        type: "HttpData",
        baseUrl: `${servers.sourceUrl}/assets/${assetId}`,
      },
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

  it("refuses a catalogue request without the provider's address (400, EDC's validator): the DID alone finds nobody", async () => {
    const { counterPartyAddress: _address, ...byDidOnly } = catalogRequest();
    const refusal = await c.consumer.client.requestCatalog(c.consumer.contextId, byDidOnly).then(
      () => "answered",
      (e: unknown) => (isUpstreamError(e) ? `${e.status} ${e.message}` : String(e)),
    );
    expect(refusal).toMatch(/^400 /);
    expect(refusal).toContain(
      "mandatory value 'https://w3id.org/edc/v0.0.1/ns/counterPartyAddress' is missing or it is blank",
    );
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
    expect(n.state, JSON.stringify(n)).toBe("FINALIZED");
    expect(typeof n.contractAgreementId).toBe("string");
    expect(n.protocol).toBe(DSP_PROTOCOL);
    agreements[assetId] = n.contractAgreementId!;
    finalised.push(n["@id"]);
  });

  it("keeps an asset's terms (the hub's namespaced properties) as written: the asset and its catalogue dataset carry them", async () => {
    const cases = [
      {
        id: `${assetId}-terms-two`,
        terms: { datasets: ["dataset-a", "dataset-b"], disclosure: "pseudonymised" },
      },
      { id: `${assetId}-terms-one`, terms: { datasets: ["dataset-a"], disclosure: "aggregate" } },
    ] as const;
    for (const { id, terms } of cases) {
      await c.provider.client.createAsset(c.provider.contextId, {
        "@context": [MANAGEMENT_CONTEXT],
        "@type": "Asset",
        "@id": id,
        properties: {
          name: id,
          ...termsProperties({ datasets: [...terms.datasets], disclosure: terms.disclosure }),
        },
        dataAddress: {
          "@type": "DataAddress",
          type: "HttpData",
          baseUrl: `${servers.sourceUrl}/assets/${id}`,
        },
      });
      await c.offer(id, policyId);
      const asset = await c.provider.client.getAsset(c.provider.contextId, id);
      expect(termsOfAsset(asset, id), id).toEqual(terms);
    }
    const catalog = await c.consumer.client.requestCatalog(c.consumer.contextId, catalogRequest());
    for (const { id, terms } of cases) {
      const dataset = summariseCatalog(catalog).datasets.find((d) => d.id === id);
      expect(termsOfAsset(dataset?.raw, id), id).toEqual(terms);
    }
    const missing = await c.provider.client.getAsset(c.provider.contextId, `no-such-${stamp}`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isNotFound(missing)).toBe(true);
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

  it("refuses to terminate a negotiation that has ended (it stays FINALIZED) or that it does not hold (404)", async () => {
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e: unknown) => (isUpstreamError(e) ? (e.status ?? -1) : -2),
      );
    // EDC 0.15.1 answers 500 here, the embedded connector 409: the hub terminates only negotiations it
    // read as running, and takes up a failed call again at the next attempt (server/dataspace/cut-off.ts)
    const ended = await status(
      c.consumer.client.terminateNegotiation(c.consumer.contextId, finalised[0]!, "permit revoked"),
    );
    expect(ended).toBeGreaterThanOrEqual(400);
    expect((await c.consumer.client.getNegotiation(c.consumer.contextId, finalised[0]!)).state).toBe(
      "FINALIZED",
    );
    expect(
      await status(
        c.consumer.client.terminateNegotiation(c.consumer.contextId, `no-such-${stamp}`, "permit revoked"),
      ),
    ).toBe(404);
  });

  it("answers 404 for a negotiation it does not hold", async () => {
    const e = await c.consumer.client.getNegotiation(c.consumer.contextId, `no-such-${stamp}`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isNotFound(e)).toBe(true);
  });

  it("refuses a DSP request without a token at the provider's DSP address (401, DSP 2025-1's error: code and reason)", async () => {
    const message = (type: string, fields: Record<string, unknown>) =>
      JSON.stringify({ "@context": [DSPACE_CONTEXT], "@type": type, ...fields });
    const callback = { callbackAddress: "http://127.0.0.1:9/callback" };
    const requests: [string, string, string | undefined, string][] = [
      ["POST", "catalog/request", message("CatalogRequestMessage", {}), "CatalogError"],
      [
        "POST",
        "negotiations/request",
        message("ContractRequestMessage", {
          consumerPid: `urn:uuid:${stamp}`,
          ...callback,
          offer: { "@id": "offer", "@type": "Offer", target: assetId },
        }),
        "ContractNegotiationError",
      ],
      [
        "POST",
        "transfers/request",
        message("TransferRequestMessage", {
          consumerPid: `urn:uuid:${stamp}`,
          agreementId: "agreement",
          format: "HttpData-PULL",
          ...callback,
        }),
        "TransferError",
      ],
      ["GET", `negotiations/urn:uuid:${stamp}`, undefined, "ContractNegotiationError"],
      ["GET", `transfers/urn:uuid:${stamp}`, undefined, "TransferError"],
    ];
    for (const [method, path, body, errorType] of requests) {
      const res = await fetch(`${c.providerAddress}/${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body,
      });
      const answer = await res.json();
      expect([method, path, res.status, answer]).toEqual([
        method,
        path,
        401,
        expect.objectContaining({ "@type": errorType, code: "401", reason: ["Unauthorized."] }),
      ]);
      expect(answer["@context"]).toContain(DSPACE_CONTEXT);
    }
  });

  const refusal = async (p: Promise<unknown>) =>
    p.then(
      () => 0,
      (e: unknown) => (isUpstreamError(e) ? (e.status ?? -1) : -2),
    );
  /** offers `id` (its source at the contract's servers) and agrees a contract for it */
  const agreedAsset = async (id: string) => {
    await c.provider.client.createAsset(c.provider.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "Asset",
      "@id": id,
      properties: { name: id },
      dataAddress: { "@type": "DataAddress", type: "HttpData", baseUrl: `${servers.sourceUrl}/assets/${id}` },
    });
    await c.offer(id, policyId);
    const catalog = await c.consumer.client.requestCatalog(c.consumer.contextId, catalogRequest());
    const datasets = [(catalog["dcat:dataset"] ?? catalog.dataset) as Record<string, unknown>[]].flat();
    const dataset = datasets.find((d) => d["@id"] === id)!;
    const offer = [(dataset["odrl:hasPolicy"] ?? dataset.hasPolicy) as Record<string, unknown>[]].flat()[0]!;
    const n = await negotiate({
      "@type": "Offer",
      "@id": offer["@id"],
      assigner: c.provider.did,
      target: id,
      ...offeredRules(catalog, id, String(offer["@id"])),
    });
    expect(n.state, JSON.stringify(n)).toBe("FINALIZED");
    return n.contractAgreementId!;
  };
  const push = (contractId: string) =>
    c.consumer.client.initiateTransfer(c.consumer.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "TransferRequest",
      protocol: DSP_PROTOCOL,
      counterPartyAddress: c.providerAddress,
      contractId,
      transferType: "HttpData-PUSH",
      dataDestination: { "@type": "DataAddress", type: "HttpData", baseUrl: `${servers.sinkUrl}/in` },
    });
  const transferUntil = (id: string, states: string[]) =>
    until(
      () => c.consumer.client.getTransfer(c.consumer.contextId, id),
      (t) => states.includes(String(t.state)),
    );

  it("pushes the asset's data to an HttpData destination (HttpData-PUSH: COMPLETED, the destination holds it)", async () => {
    const { "@id": id } = await push(agreements[assetId]!);
    const t = await transferUntil(id, ["COMPLETED", "TERMINATED"]);
    expect(t.state, String(t.errorDetail)).toBe("COMPLETED");
    expect(servers.received.length).toBeGreaterThan(0);
    expect(JSON.parse(servers.received[0]!)).toEqual(SOURCE_DATA);
  });

  it("serves a pull (HttpData-PULL: STARTED; the EDR's endpoint answers the source's data with its token, again, 401 without; the transfer stays STARTED)", async () => {
    const { "@id": id } = await c.consumer.client.initiateTransfer(c.consumer.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "TransferRequest",
      protocol: DSP_PROTOCOL,
      counterPartyAddress: c.providerAddress,
      contractId: agreements[assetId]!,
      transferType: "HttpData-PULL",
    });
    const t = await transferUntil(id, ["STARTED", "COMPLETED", "TERMINATED"]);
    expect(t.state, String(t.errorDetail)).toBe("STARTED");
    const edr = await until(
      () => c.consumer.client.getEndpointDataReference(c.consumer.contextId, id).catch(() => undefined),
      (e) => !!e,
    );
    // the data plane is on the provider's host (what the hub's pull allows, decision 0104)
    expect(new URL(edr!.endpoint).hostname).toBe(new URL(c.providerAddress).hostname);
    const without = await fetch(edr!.endpoint);
    expect(without.status).toBe(401);
    for (const _ of [1, 2]) {
      const pulled = await fetch(edr!.endpoint, { headers: { authorization: edr!.authorization } });
      expect(pulled.status).toBe(200);
      expect(await pulled.json()).toEqual(SOURCE_DATA);
    }
    // a pull transfer stays open after its pulls, until it is terminated (so a revoked permit can end it)
    expect((await c.consumer.client.getTransfer(c.consumer.contextId, id)).state).toBe("STARTED");
  });

  it("terminates an open transfer with a reason: TERMINATED with it, the provider's side ends; 409 again, 400 without a reason, 404 unknown", async () => {
    const contractId = await agreedAsset(heldAssetId);
    // the source holds its answer: the push stays STARTED until it is terminated
    const { "@id": id } = await push(contractId);
    const started = await transferUntil(id, ["STARTED", "COMPLETED", "TERMINATED"]);
    expect(started.state, String(started.errorDetail)).toBe("STARTED");
    const reason = `data permit revoked (${stamp})`;
    await c.consumer.client.terminateTransfer(c.consumer.contextId, id, reason);
    const ended = await transferUntil(id, ["TERMINATED"]);
    expect(ended.state).toBe("TERMINATED");
    expect(ended.errorDetail).toBe(reason);
    const providerSide = await until(
      async () =>
        (await c.provider.client.listTransfers(c.provider.contextId)).find((t) => t.correlationId === id),
      (t) => ["TERMINATED", "DEPROVISIONED"].includes(String(t?.state)),
    );
    expect(["TERMINATED", "DEPROVISIONED"]).toContain(providerSide?.state);
    expect(await refusal(c.consumer.client.terminateTransfer(c.consumer.contextId, id, "again"))).toBe(409);
    expect(await refusal(c.consumer.client.terminateTransfer(c.consumer.contextId, id, " "))).toBe(400);
    expect(
      await refusal(c.consumer.client.terminateTransfer(c.consumer.contextId, `no-such-${stamp}`, "x")),
    ).toBe(404);
    servers.release();
  });

  it("replaces a policy definition (PUT, Set without empty rule lists) and deletes it (DELETE); 404 unknown, 409 while offered", async () => {
    const other = `${policyId}-edited`;
    const body = (rules: Record<string, unknown>) => ({
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "PolicyDefinition",
      "@id": other,
      policy: { "@type": "Set", ...rules },
    });
    await c.provider.client.createPolicyDefinition(
      c.provider.contextId,
      body({ permission: [{ action: "use" }] }),
    );
    await c.provider.client.updatePolicyDefinition(
      c.provider.contextId,
      other,
      body({ permission: [{ action: "use" }], prohibition: [{ action: "use" }] }),
    );
    const held = (await c.provider.client.listPolicyDefinitions(c.provider.contextId)).find(
      (d) => d["@id"] === other,
    );
    const doc = fromConnector(held!);
    expect(doc.policy.prohibition).toHaveLength(1);
    expect(JSON.stringify(doc.policy.prohibition)).toMatch(/use/);
    // a policy definition's policy is a Set: an Offer is refused, on create and on replace
    expect(
      await refusal(
        c.provider.client.updatePolicyDefinition(c.provider.contextId, other, {
          ...body({ permission: [{ action: "use" }] }),
          policy: { "@type": "Offer", permission: [{ action: "use" }] },
        }),
      ),
    ).toBe(400);
    expect(
      await refusal(
        c.provider.client.createPolicyDefinition(c.provider.contextId, {
          ...body({ permission: [{ action: "use" }] }),
          "@id": `${other}-offer`,
          policy: { "@type": "Offer", permission: [{ action: "use" }] },
        }),
      ),
    ).toBe(400);
    expect(
      await refusal(
        c.provider.client.updatePolicyDefinition(c.provider.contextId, `no-such-${stamp}`, {
          ...body({ permission: [{ action: "use" }] }),
          "@id": `no-such-${stamp}`,
        }),
      ),
    ).toBe(404);
    // an action or a left operand that no policy extension binds to a scope is refused, in EDC's words
    // (the embedded connector binds the vocabulary of the hub's templates besides EDC's `use`)
    const unbound = async (id: string, rules: Record<string, unknown>, update = false) =>
      (update
        ? c.provider.client.updatePolicyDefinition(c.provider.contextId, id, { ...body(rules), "@id": id })
        : c.provider.client.createPolicyDefinition(c.provider.contextId, { ...body(rules), "@id": id })
      ).then(
        () => "accepted",
        (e: unknown) => (isUpstreamError(e) ? `${e.status} ${e.message}` : String(e)),
      );
    // a bare action is reported as written, or as ODRL's when the policy names the ODRL context
    expect(await unbound(`${other}-transform`, { permission: [{ action: "transform" }] })).toMatch(
      /^400 .*action 'transform' is not bound to any scopes: Rule \{ Permission constraints: \[\] \}/,
    );
    expect(
      await unbound(`${other}-odrl`, {
        "@context": ODRL_CONTEXT,
        permission: [{ action: "use" }],
        prohibition: [{ action: "transform" }],
      }),
    ).toMatch(
      /^400 .*action 'http:\/\/www\.w3\.org\/ns\/odrl\/2\/transform' is not bound to any scopes: Rule \{ Prohibition/,
    );
    expect(
      await unbound(`${other}-duty`, {
        permission: [{ action: "use" }],
        obligation: [{ action: "http://example.org/ns/unbound" }],
      }),
    ).toMatch(/^400 .*action 'http:\/\/example\.org\/ns\/unbound' is not bound to any scopes: Rule \{ Duty/);
    expect(
      await unbound(
        other,
        {
          permission: [
            {
              action: "use",
              constraint: [
                { leftOperand: "http://example.org/ns/colour", operator: "eq", rightOperand: "red" },
              ],
            },
          ],
        },
        true,
      ),
    ).toMatch(/^400 .*leftOperand 'http:\/\/example\.org\/ns\/colour' is not bound to any scopes/);
    // nothing of a refused policy is kept: the replaced one still holds its rules
    const kept = (await c.provider.client.listPolicyDefinitions(c.provider.contextId)).filter((d) =>
      String(d["@id"]).startsWith(`${other}-`),
    );
    expect(kept).toEqual([]);
    expect(
      JSON.stringify(
        fromConnector(
          (await c.provider.client.listPolicyDefinitions(c.provider.contextId)).find(
            (d) => d["@id"] === other,
          )!,
        ).policy,
      ),
    ).not.toMatch(/colour/);
    // the offered policy is named by a contract definition: the connector keeps it
    expect(await refusal(c.provider.client.deletePolicyDefinition(c.provider.contextId, policyId))).toBe(409);
    await c.provider.client.deletePolicyDefinition(c.provider.contextId, other);
    const after = await c.provider.client.listPolicyDefinitions(c.provider.contextId);
    expect(after.map((d) => d["@id"])).not.toContain(other);
    expect(after.map((d) => d["@id"])).toContain(policyId);
    expect(await refusal(c.provider.client.deletePolicyDefinition(c.provider.contextId, other))).toBe(404);
  });

  it("reads a policy definition (404 unknown), takes a contract definition without checking its policies (409 for a taken id), and deletes definition and asset (204; 404 unknown)", async () => {
    const p = c.provider;
    expect((await p.client.getPolicyDefinition(p.contextId, policyId))["@id"]).toBe(policyId);
    expect(await refusal(p.client.getPolicyDefinition(p.contextId, `no-such-${stamp}`))).toBe(404);
    const id = `${assetId}-undone`;
    await p.client.createAsset(p.contextId, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "Asset",
      "@id": id,
      properties: { name: "undone" },
      dataAddress: { "@type": "DataAddress", type: "HttpData", baseUrl: `${servers.sourceUrl}/assets/${id}` },
    });
    // the hub's offer of an asset (server/dataspace/assets.ts); the connector does not look its policy up
    const definition = { ...buildContractDefinition(id, `no-such-${stamp}`), "@id": `${id}-offer` };
    expect((await p.client.createContractDefinition(p.contextId, definition))["@id"]).toBe(`${id}-offer`);
    expect(await refusal(p.client.createContractDefinition(p.contextId, definition))).toBe(409);
    // listed (POST …/contractdefinitions/request, a QuerySpec) with its policies and its selector as written
    const listed = (await p.client.listContractDefinitions(p.contextId)).find(
      (d) => d["@id"] === `${id}-offer`,
    );
    expect(listed, "the definition is listed").toMatchObject({
      accessPolicyId: `no-such-${stamp}`,
      contractPolicyId: `no-such-${stamp}`,
    });
    expect([listed!.assetsSelector].flat()).toEqual([
      expect.objectContaining({
        operandLeft: "https://w3id.org/edc/v0.0.1/ns/id",
        operator: "=",
        operandRight: id,
      }),
    ]);
    expect(await refusal(p.client.deleteContractDefinition(p.contextId, `${id}-offer`))).toBe(0);
    expect(await refusal(p.client.deleteContractDefinition(p.contextId, `${id}-offer`))).toBe(404);
    expect((await p.client.listContractDefinitions(p.contextId)).map((d) => d["@id"])).not.toContain(
      `${id}-offer`,
    );
    expect(await refusal(p.client.deleteAsset(p.contextId, id))).toBe(0);
    expect(await refusal(p.client.deleteAsset(p.contextId, id))).toBe(404);
    expect((await p.client.listAssets(p.contextId)).map((a) => a["@id"])).not.toContain(id);
    // an asset a contract agreement names is kept (409)
    expect(await refusal(p.client.deleteAsset(p.contextId, assetId))).toBe(409);
  });
}
