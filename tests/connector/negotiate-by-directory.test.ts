import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { action, loader } from "../../app/routes/negotiate/route";
import { buildContractDefinition } from "../../server/dataspace/assets";
import { createConnectorClient } from "../../server/dataspace/connector-client";
import { MANAGEMENT_CONTEXT } from "../../server/dataspace-protocol";
import { standInPermits } from "../support/permits";
import { startRouteHarness, type RouteHarness } from "../support/route-context";
import { until } from "../support/until";

/*
 * The consumer's main flow against two real EDC 0.15.1 connectors (the connector pass,
 * scripts/real-systems/connector-pass.mjs): the consumer's hub, a whole server configured with its
 * connector, knows the provider only from the operator's participant directory (an entry for the
 * provider's DID whose catalogue address is the provider's real DSP catalogue address). A researcher
 * opens the negotiate page: the provider is listed, its catalogue is fetched without anyone giving an
 * address (EDC refuses a catalogue request without one), and the page's action negotiates one of its
 * offers to FINALIZED. Before, the page listed no provider (a runtime-scoped connector has no participant
 * contexts) and the catalogue by DID was EDC's 400, the hub's 502.
 */

const env = process.env;
const enabled = !!env.EDC_PROVIDER_MANAGEMENT_URL && !!env.EDC_CONSUMER_MANAGEMENT_URL;
const PROVIDER = env.EDC_PROVIDER_ID ?? "";
/** the provider's DSP 2025-1 address (EDC 0.15: `<protocol>/2025-1`), and its catalogue request address */
const PROVIDER_DSP = `${env.EDC_PROVIDER_PROTOCOL_URL}/2025-1`;
const PROVIDER_CATALOGUE = `${PROVIDER_DSP}/catalog/request`;
/**
 * the consumer's runtime is the researcher's organisation's connector (PharmaCo's DID, connector-pass.mjs):
 * its one context is that participant id
 */
const CONSUMER_CONTEXT = env.EDC_CONSUMER_ID ?? "";

describe.skipIf(!enabled)("negotiate by the participant directory, against real EDC connectors", () => {
  let h: RouteHarness;
  let entryId = "";
  const stamp = Date.now().toString(36);
  const assetId = `directory-asset-${stamp}`;
  const policyId = `directory-policy-${stamp}`;

  beforeAll(async () => {
    // the provider offers an asset (at its connector: the provider's hub is not this test's)
    const provider = createConnectorClient({
      managementUrl: env.EDC_PROVIDER_MANAGEMENT_URL!,
      apiVersion: "v4beta",
      timeoutMs: 15_000,
      apiKey: env.EDC_PROVIDER_API_KEY!,
      participantId: PROVIDER,
    });
    await provider.createAsset(PROVIDER, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "Asset",
      "@id": assetId,
      properties: { name: "Directory cohort" },
      dataAddress: { "@type": "DataAddress", type: "HttpData", baseUrl: "http://127.0.0.1:9/data" },
    });
    await provider.createPolicyDefinition(PROVIDER, {
      "@context": [MANAGEMENT_CONTEXT],
      "@type": "PolicyDefinition",
      "@id": policyId,
      policy: { "@type": "Set", permission: [{ action: "use" }] },
    });
    const offered = await fetch(`${env.EDC_PROVIDER_MANAGEMENT_URL}/v4beta/contractdefinitions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": env.EDC_PROVIDER_API_KEY! },
      body: JSON.stringify(buildContractDefinition(assetId, policyId)),
    });
    expect(offered.status, await offered.text()).toBe(200);

    // the consumer's hub: its own connector, and the provider in its operator's directory
    h = await startRouteHarness({
      CONNECTOR_MANAGEMENT_URL: env.EDC_CONSUMER_MANAGEMENT_URL!,
      CONNECTOR_API_KEY: env.EDC_CONSUMER_API_KEY!,
      CONNECTOR_API_VERSION: "v4beta",
      CONNECTOR_PARTICIPANT_ID: CONSUMER_CONTEXT,
      UPSTREAM_TIMEOUT_MS: "15000",
    });
    // a contract needs a data permit: the stand-in access body holds one for every dataset
    h.context.services.dataspace.usePermits(standInPermits);
    const entry = await h.context.services.operator.addDirectoryEntry(
      { did: PROVIDER, displayName: "EDC Provider", country: "DE", catalogueUrl: PROVIDER_CATALOGUE },
      "admin",
    );
    entryId = entry.id;
  }, 60_000);
  afterAll(async () => h?.close());

  const load = async (path: string, as = "researcher") =>
    loader({ request: await h.request(as, path), context: h.context, params: {} });

  it("the page acts in the runtime's one participant: the operator's choice, and no other organisation's (decision 0110)", async () => {
    // before, an operator's page said "No participant context is available" (a runtime lists no contexts)
    const operator = await load("/negotiate", "admin");
    expect(operator.acting).toMatchObject({ participantId: CONSUMER_CONTEXT, canChoose: true, reason: null });
    expect(operator.acting.choices.map((c) => c.participantId)).toEqual([CONSUMER_CONTEXT]);
    // AlphaKlinik is not the participant this runtime is: its member's page acts in nothing
    const clinic = await load("/negotiate", "clinic");
    expect(clinic.acting).toMatchObject({
      participantId: null,
      reason: "AlphaKlinik Berlin is not a participant of the dataspace.",
    });
  });

  it("the API: a catalogue by the provider's DID alone goes to the directory entry's DSP address", async () => {
    const r = await fetch(
      await h.request(
        "researcher",
        `/api/negotiations?participantId=${CONSUMER_CONTEXT}&catalog=true&providerDid=${encodeURIComponent(PROVIDER)}`,
      ),
    );
    const body = (await r.json()) as Record<string, unknown>;
    expect(r.status, JSON.stringify(body)).toBe(200);
    const summary = h.context.services.dataspace.summariseCatalog(body);
    expect(summary.providerDid).toBe(PROVIDER);
    expect(summary.datasets.map((d) => d.id)).toContain(assetId);
  });

  it("the page lists the directory's provider, fetches its catalogue and negotiates an offer to FINALIZED", async () => {
    const page = await load("/negotiate");
    expect(page.acting.participantId).toBe(CONSUMER_CONTEXT);
    const listed = page.providers.find((p) => p.did === PROVIDER);
    expect(listed, JSON.stringify(page.providers)).toMatchObject({ participantId: entryId });

    const chosen = await load(`/negotiate?provider=${encodeURIComponent(entryId)}`);
    expect(chosen.catalogError).toBeNull();
    // the endpoint the form negotiates at: EDC 0.15's dcat:service endpoint, the provider's DSP address
    expect(chosen.catalog?.endpointUrl).toBe(PROVIDER_DSP);
    expect(chosen.catalog?.providerDid).toBe(PROVIDER);
    const dataset = chosen.catalog?.datasets.find((d) => d.id === assetId);
    expect(dataset?.offers.length).toBeGreaterThan(0);

    // the form as the page renders it
    const answer = await action({
      request: await h.post("researcher", "/negotiate", {
        participant: "",
        provider: chosen.provider!.participantId,
        providerDid: chosen.catalog!.providerDid,
        counterPartyAddress: chosen.catalog!.endpointUrl,
        offer: JSON.stringify([assetId, dataset!.offers[0]!.id]),
      }),
      context: h.context,
      params: {},
    });
    expect(answer, JSON.stringify(answer)).toBeInstanceOf(Response);
    const location = (answer as Response).headers.get("location") ?? "";
    const id = decodeURIComponent(/^\/negotiations\/([^?]+)/.exec(location)?.[1] ?? "");
    expect(id).not.toBe("");
    const n = await until(
      () => h.context.services.dataspace.getNegotiation(CONSUMER_CONTEXT, id),
      (b) => b.state === "FINALIZED" || b.state === "TERMINATED",
    );
    expect(n.state, JSON.stringify(n)).toBe("FINALIZED");
    expect(n.counterPartyAddress).toBe(PROVIDER_DSP);
  });
});
