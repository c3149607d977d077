import { describe, expect, it } from "vitest";
import { pseudonymFor } from "../../server/dataspace/release";
import { PERMIT_ID } from "../support/permits";
import { type JsonBody, ALPHA_DID, localDataspaceHarness } from "./dataspace-local.support";

/**
 * The dataspace routes against the embedded local dataspace, over real HTTP on 127.0.0.1: the
 * consumer flow (catalogue → negotiation to FINALIZED → transfer to STARTED → data pulled →
 * COMPLETED), TERMINATED negotiations, onboarding with provisioning, credentials, tasks, and
 * state that survives a restart of the local dataspace.
 *
 * This file: negotiation and transfer, and tasks.
 */

const h = localDataspaceHarness();
const { call, until, alphaOffer, pulled } = h;

/** the researcher's (pharmaco's) contract request for the Alpha Klinik's FHIR cohort offer */
const alphaContractRequest = (offerId: string) => ({
  participantId: "pharmaco",
  counterPartyAddress: `${h.ds.local!.protocolBaseUrl}/`,
  counterPartyId: "alphaklinik-berlin",
  providerDid: ALPHA_DID,
  offerId,
  assetId: "fhir-cohort-bundle",
});

/** a transfer under a demonstration agreement id: the hub's own record, not the connector's */
const DEMO_TRANSFER = {
  participantId: "pharmaco",
  contractId: "agreement-fhir-cohort-bundle-001",
  counterPartyAddress: "https://dsp.alpha-klinik.de/api/dsp",
  assetId: "fhir-cohort-bundle",
};

async function negotiate(body: Record<string, unknown>) {
  const started = await call("POST /api/negotiations", { body, as: "researcher" });
  expect(started.status).toBe(201);
  const id = started.body["@id"] as string;
  return until(
    async () =>
      (
        await call("GET /api/negotiations/:id", {
          params: { id },
          query: { participantId: "pharmaco" },
          as: "researcher",
        })
      ).body,
    (n) => n.state === "FINALIZED" || n.state === "TERMINATED",
  );
}

describe("negotiation and transfer", () => {
  it("fetches the provider catalogue: DCAT datasets with odrl:hasPolicy offers and the provider's DSP address", async () => {
    const { summary, dataset } = await alphaOffer();
    expect(summary.providerDid).toBe(ALPHA_DID);
    expect(summary.endpointUrl).toBe(`${h.ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`);
    expect(dataset.offers[0].policy).toMatchObject({
      "@type": "odrl:Offer",
      "odrl:assigner": ALPHA_DID,
      "odrl:target": "fhir-cohort-bundle",
    });
  });

  let agreementId = "";

  it("negotiates to FINALIZED through REQUESTED, AGREED and VERIFIED, with a contract agreement id", async () => {
    const { offerId } = await alphaOffer();
    const seen = new Set<string>();
    const started = await call("POST /api/negotiations", {
      as: "researcher",
      body: alphaContractRequest(offerId),
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"];
    const final = await until(
      async () => {
        const n = (
          await call("GET /api/negotiations/:id", {
            params: { id },
            query: { participantId: "pharmaco" },
            as: "researcher",
          })
        ).body;
        seen.add(n.state);
        return n;
      },
      (n) => n.state === "FINALIZED",
    );
    expect(final.state).toBe("FINALIZED");
    expect(final.counterPartyAddress).toBe(`${h.ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`);
    expect(final.contractAgreementId).toEqual(expect.any(String));
    expect(final.contractId).toBe(final.contractAgreementId);
    expect([...seen].every((s) => ["REQUESTED", "AGREED", "VERIFIED", "FINALIZED"].includes(s))).toBe(true);
    agreementId = final.contractAgreementId;

    const list = await call("GET /api/negotiations", {
      query: { participantId: "pharmaco" },
      as: "researcher",
    });
    expect(list.body[0]["@id"]).toBe(id); // live first, newest first
    expect(list.body.some((n: JsonBody) => n._demo)).toBe(true);
  });

  it("terminates a negotiation whose assigner is not the provider's DID, with an error detail", async () => {
    const { offerId } = await alphaOffer();
    const n = await negotiate({
      participantId: "pharmaco",
      counterPartyAddress: h.ds.local!.protocolBaseUrl,
      counterPartyId: "alphaklinik-berlin",
      offerId,
      assetId: "fhir-cohort-bundle",
    });
    expect(n.state).toBe("TERMINATED");
    expect(n.errorDetail).toMatch(
      /assigner "alphaklinik-berlin" is not the provider's DID did:web:alpha-klinik\.de:participant/,
    );
  });

  it("terminates a negotiation for an offer the provider does not know", async () => {
    const n = await negotiate({
      participantId: "pharmaco",
      counterPartyAddress: h.ds.local!.protocolBaseUrl,
      counterPartyId: "alphaklinik-berlin",
      providerDid: ALPHA_DID,
      offerId: "no-such-offer",
      assetId: "fhir-cohort-bundle",
    });
    expect(n.state).toBe("TERMINATED");
    expect(n.errorDetail).toMatch(/Contract offer no-such-offer is unknown/);
  });

  it("transfers under the agreement: STARTED with an EDR, data pulled from the data plane, still STARTED (as EDC keeps a pull transfer)", async () => {
    expect(agreementId).not.toBe("");
    const started = await call("POST /api/transfers", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        contractId: agreementId,
        counterPartyAddress: `${h.ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
        assetId: "fhir-cohort-bundle",
      },
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"];
    const running = await until(
      async () =>
        (
          await call("GET /api/transfers/:id", {
            params: { id },
            query: { participantId: "pharmaco" },
            as: "researcher",
          })
        ).body,
      (t) => t.state !== "REQUESTED",
    );
    expect(running).toMatchObject({
      state: "STARTED",
      transferType: "HttpData-PULL",
      assetId: "fhir-cohort-bundle",
    });

    const data = await h.ds.pullTransferData("pharmaco", id);
    expect(data.endpoint).toBe(`${h.ds.local!.url}/public/${id}`);
    // the provider's record arrives pseudonymised under the contract's data permit (release.ts)
    expect(data.permitId).toBe(PERMIT_ID);
    expect(data.data).toMatchObject({
      resourceType: "Bundle",
      entry: [
        {
          resource: {
            resourceType: "Patient",
            id: pseudonymFor(h.ds.runtime.releaseSecret, PERMIT_ID, "patient-of-alphaklinik-berlin"),
          },
        },
      ],
    });
    expect(pulled).toContainEqual({ assetId: "fhir-cohort-bundle", provider: "alphaklinik-berlin" });

    const done = await call("GET /api/transfers/:id", {
      params: { id },
      query: { participantId: "pharmaco" },
      as: "researcher",
    });
    expect(done.body.state).toBe("STARTED");

    const edr = await fetch(`${h.ds.local!.url}/public/${id}`);
    expect(edr.status).toBe(401); // the data plane wants the EDR token
  });

  it("terminates a transfer without a valid agreement", async () => {
    const started = await call("POST /api/transfers", {
      as: "researcher",
      body: {
        participantId: "pharmaco",
        contractId: "no-such-agreement",
        counterPartyAddress: `${h.ds.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
      },
    });
    expect(started.status).toBe(201);
    const t = await until(
      async () =>
        (
          await call("GET /api/transfers/:id", {
            params: { id: started.body["@id"] },
            query: { participantId: "pharmaco" },
          })
        ).body,
      (x) => x.state !== "REQUESTED",
    );
    expect(t).toMatchObject({
      state: "TERMINATED",
      errorDetail: expect.stringMatching(/No contract agreement no-such-agreement/),
    });
  });

  it("starts a demonstration transfer for a demo agreement id without asking the connector, and reads it back", async () => {
    const res = await call("POST /api/transfers", {
      as: "researcher",
      body: DEMO_TRANSFER,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      "@type": "TransferProcess",
      state: "REQUESTED",
      type: "CONSUMER",
      _demo: true,
      transferType: "HttpData-PULL",
    });
    const back = await call("GET /api/transfers/:id", {
      params: { id: res.body["@id"] },
      query: { participantId: "pharmaco" },
    });
    expect(back.status).toBe(200);
    expect(back.body["@id"]).toBe(res.body["@id"]);
    const list = await call("GET /api/transfers", { query: { participantId: "pharmaco" } });
    expect(list.body.map((t: JsonBody) => t["@id"])).toContain(res.body["@id"]);
  });

  it("GET /api/negotiations/:id answers 404 for an unknown id", async () => {
    const res = await call("GET /api/negotiations/:id", {
      params: { id: "nope" },
      query: { participantId: "pharmaco" },
    });
    expect(res.status).toBe(404);
    expect(
      (await call("GET /api/transfers/:id", { params: { id: "nope" }, query: { participantId: "pharmaco" } }))
        .status,
    ).toBe(404);
  });
});

describe("tasks", () => {
  it("scopes tasks to the caller's organisation; admins see every context", async () => {
    const researcher = await call("GET /api/tasks", { as: "researcher" });
    expect(researcher.status).toBe(200);
    expect(researcher.body.length).toBeGreaterThan(0);
    expect(new Set(researcher.body.map((t: JsonBody) => t.participantId))).toEqual(new Set(["pharmaco"]));
    expect(researcher.body[0]).toEqual({
      id: expect.any(String),
      title: expect.any(String),
      state: expect.any(String),
      participantId: "pharmaco",
      kind: expect.stringMatching(/^(negotiation|transfer)$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const clinic = await call("GET /api/tasks", { as: "clinic" });
    expect(clinic.body.length).toBeGreaterThan(0);
    expect(new Set(clinic.body.map((t: JsonBody) => t.participantId))).toEqual(
      new Set(["alphaklinik-berlin"]),
    );
    expect(clinic.body.some((t: JsonBody) => t.kind === "negotiation" && t.state === "FINALIZED")).toBe(true);
    // issue 40, names not ids: the asset's name, the counter-party's name, the transfer type in words; the
    // clinic holds the provider's side of the bundled demonstration contract and its transfer
    const titles = (body: JsonBody[]) => body.map((t) => t.title as string);
    expect(titles(researcher.body)).toContain(
      "Contract for FHIR R4 diabetes cohort bundle with AlphaKlinik Berlin",
    );
    expect(titles(researcher.body)).toContain(
      "Transfer of FHIR R4 diabetes cohort bundle from AlphaKlinik Berlin (HTTP pull)",
    );
    expect(titles(clinic.body)).toContain("Offer of FHIR R4 diabetes cohort bundle to PharmaCo Research AG");
    expect(titles(clinic.body)).toContain(
      "Delivery of FHIR R4 diabetes cohort bundle to PharmaCo Research AG (HTTP pull)",
    );
    for (const t of [...titles(researcher.body), ...titles(clinic.body)])
      expect(t).not.toMatch(/fhir-cohort-bundle|omop-cohort-statistics|HttpData|agreement-/);
    // and never itself as its own counter-party
    for (const t of titles(clinic.body)) expect(t).not.toMatch(/AlphaKlinik Berlin/);
    const admin = await call("GET /api/tasks", { as: "admin" });
    const contexts = new Set(admin.body.map((t: JsonBody) => t.participantId));
    expect(contexts.has("pharmaco") && contexts.has("alphaklinik-berlin")).toBe(true);
  });
});

describe("tasks from kept answers", () => {
  const taskOf = async (id: string) =>
    ((await call("GET /api/tasks", { as: "researcher" })).body as JsonBody[]).find((t) => t.id === id);

  it("a negotiation started here and a demonstration transfer are tasks at once, and a state the dataspace moves shows without a write through this server", async () => {
    // warm: the second list is built from what the read cache holds, without a read upstream
    await call("GET /api/tasks", { as: "researcher" });
    const misses = h.ds.readCache.stats.misses;
    const before = (await call("GET /api/tasks", { as: "researcher" })).body as JsonBody[];
    expect(h.ds.readCache.stats.misses).toBe(misses);

    const { offerId } = await alphaOffer();
    const started = await call("POST /api/negotiations", {
      as: "researcher",
      body: alphaContractRequest(offerId),
    });
    expect(started.status).toBe(201);
    const id = started.body["@id"] as string;
    expect(before.some((t) => t.id === id)).toBe(false);
    const first = await taskOf(id);
    expect(first).toMatchObject({ kind: "negotiation", participantId: "pharmaco" });
    expect(first.state).not.toBe("FINALIZED");
    // the embedded dataspace moves it on by itself: its change counter ends the kept answers
    const finalised = await until(
      () => taskOf(id),
      (t) => t?.state === "FINALIZED",
    );
    expect(finalised.state).toBe("FINALIZED");

    // a demonstration transfer is not the connector's: the demonstration store's own version ends its kept list
    await call("GET /api/tasks", { as: "researcher" });
    const transfer = await call("POST /api/transfers", {
      as: "researcher",
      body: DEMO_TRANSFER,
    });
    expect(transfer.status).toBe(201);
    const kept = h.ds.readCache.stats.misses;
    expect(await taskOf(transfer.body["@id"] as string)).toMatchObject({
      kind: "transfer",
      state: "REQUESTED",
    });
    expect(h.ds.readCache.stats.misses).toBe(kept);
  });
});
