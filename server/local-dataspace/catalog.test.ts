import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalDataspace } from "./index";
import { bearerOf, startTestDataspace } from "../../tests/support/local-dataspace";
import { MANAGEMENT_CONTEXT } from "../dataspace-protocol";

/**
 * The management API's catalogue request (POST …/participants/{consumer}/catalog/request): as EDC's,
 * it needs the provider's DSP address (the DID alone: 400); the provider at that address is asked in-process (catalog.ts catalogOfProvider) and a provider that
 * cannot answer is the consumer's 502, as a DSP endpoint answering 404 over HTTP was. The DSP
 * endpoint itself is tested over HTTP by tests/api/dataspace-local.test.ts.
 */
let local: LocalDataspace;
let auth: Record<string, string>;
let contexts: string;

beforeAll(async () => {
  local = await startTestDataspace({
    dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
  });
  auth = { authorization: await bearerOf(local), "content-type": "application/json" };
  contexts = `${local.managementUrl}/${local.apiVersion}/participants`;
});
afterAll(() => local?.close());

const requestCatalog = (consumer: string, body: unknown) =>
  fetch(`${contexts}/${consumer}/catalog/request`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ "@context": [MANAGEMENT_CONTEXT], ...(body as object) }),
  });

describe("management API catalogue request", () => {
  it("answers the provider's catalogue by its DSP address, with offers of the provider", async () => {
    const byAddress = await requestCatalog("pharmaco", {
      counterPartyAddress: `${local.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
      counterPartyId: "did:web:alpha-klinik.de:participant",
    });
    expect(byAddress.status).toBe(200);
    const catalog = (await byAddress.json()) as { "dcat:dataset": { "odrl:hasPolicy": unknown[] }[] };
    expect(catalog).toMatchObject({
      "@type": "dcat:Catalog",
      "dspace:participantId": "did:web:alpha-klinik.de:participant",
    });
    expect(catalog["dcat:dataset"].length).toBeGreaterThan(0);
    expect(catalog["dcat:dataset"].every((d) => d["odrl:hasPolicy"].length > 0)).toBe(true);
  });

  it("as EDC: refuses a catalogue request without an address (the DID alone finds nobody), with EDC's text", async () => {
    for (const counterPartyAddress of [undefined, "  "]) {
      const byDid = await requestCatalog("pharmaco", {
        counterPartyId: "did:web:alpha-klinik.de:participant",
        counterPartyAddress,
      });
      expect(byDid.status).toBe(400);
      expect(((await byDid.json()) as unknown[])[0]).toMatchObject({
        message:
          "mandatory value 'https://w3id.org/edc/v0.0.1/ns/counterPartyAddress' is missing or it is blank",
        type: "ValidationFailure",
        path: "https://w3id.org/edc/v0.0.1/ns/counterPartyAddress",
      });
    }
  });

  it("the address decides, not the DID: another provider's address answers that provider's catalogue", async () => {
    const r = await requestCatalog("pharmaco", {
      counterPartyAddress: `${local.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
      counterPartyId: "did:web:nobody.example",
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ "dspace:participantId": "did:web:alpha-klinik.de:participant" });
  });

  it("answers 502 for a provider of this runtime that is not active, and 404 for one it does not know", async () => {
    const created = await fetch(contexts, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        "@id": "dormant-provider",
        identity: "did:web:dormant.example",
        state: "CREATED",
      }),
    });
    expect(created.status).toBeLessThan(300);
    const dormant = await requestCatalog("pharmaco", {
      counterPartyAddress: `${local.protocolBaseUrl}/dormant-provider/2025-1`,
    });
    expect(dormant.status).toBe(502);
    expect(((await dormant.json()) as unknown[])[0]).toMatchObject({
      message: "The provider's DSP endpoint answered HTTP 404",
      type: "ProviderError",
    });

    const elsewhere = "http://127.0.0.1:9/api/dsp/nobody/2025-1";
    const unknown = await requestCatalog("pharmaco", {
      counterPartyAddress: elsewhere,
      counterPartyId: "did:web:nobody.example",
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }[])[0].message).toBe(
      `No participant of this dataspace is known as ${elsewhere}`,
    );
  });
});
