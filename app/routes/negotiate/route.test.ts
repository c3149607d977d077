import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEGOTIATION_FIELDS_REQUIRED } from "../../../server/dataspace/negotiations";
import { startRouteHarness, type RouteHarness } from "../../../tests/support/route-context";
import { action, loader } from "./route";

/** /negotiate: the offer form marks the chosen offer when the service or the form refuses it. */
let h: RouteHarness;
beforeAll(async () => {
  h = await startRouteHarness();
});
afterAll(async () => h?.close());

const negotiate = async (fields: Record<string, string>) =>
  action({ request: await h.post("researcher", "/negotiate", fields), context: h.context, params: {} });

const load = async (persona: string, path: string) =>
  loader({ request: await h.request(persona, path), context: h.context, params: {} });

const ALPHA_DID = "did:web:alpha-klinik.de:participant";
/** a participant the embedded connector has no context for: only the operator's directory knows it */
const NEWCOMER_DID = "did:web:newcomer-clinic.example";
let newcomerId = "";

describe("negotiate loader: providers from the connector and the participant directory", () => {
  beforeAll(async () => {
    // its catalogue is served at an address of the embedded dataspace (Alpha-Klinik's DSP endpoint)
    const local = h.context.services.dataspace.local!;
    const entry = await h.context.services.operator.addDirectoryEntry(
      {
        did: NEWCOMER_DID,
        displayName: "Newcomer Clinic",
        country: "DE",
        catalogueUrl: `${local.protocolBaseUrl}/alphaklinik-berlin/2025-1/catalog/request`,
      },
      "admin",
    );
    newcomerId = entry.id;
  });

  it("lists the directory's participants with the connector's contexts, one per DID, not the acting one", async () => {
    const d = await load("researcher", "/negotiate");
    const dids = d.providers.map((p) => p.did);
    expect(dids).toContain(ALPHA_DID);
    expect(dids).toContain(NEWCOMER_DID);
    expect(new Set(dids).size).toBe(dids.length);
    expect(d.providers.find((p) => p.participantId === "pharmaco")).toBeUndefined();
    expect(dids).not.toContain(d.acting.did);
  });

  it("fetches a directory participant's catalogue at the address its entry names (no address given)", async () => {
    const d = await load("researcher", `/negotiate?provider=${encodeURIComponent(newcomerId)}`);
    expect(d.catalogError).toBeNull();
    expect(d.provider?.did).toBe(NEWCOMER_DID);
    // the embedded connector answered the catalogue at that address: Alpha-Klinik's, with its DSP endpoint
    expect(d.catalog?.providerDid).toBe(ALPHA_DID);
    expect(d.catalog?.endpointUrl).toBe(
      `${h.context.services.dataspace.local!.protocolBaseUrl}/alphaklinik-berlin/2025-1`,
    );
    expect(d.catalog?.datasets.length).toBeGreaterThan(0);
  });

  it("fetches a connector context's catalogue at its DSP address, as before", async () => {
    const d = await load("researcher", "/negotiate?provider=alphaklinik-berlin");
    expect(d.catalogError).toBeNull();
    expect(d.catalog?.providerDid).toBe(ALPHA_DID);
    expect(d.catalog?.datasets.length).toBeGreaterThan(0);
  });

  it("the API too: a catalogue by DID only goes to the directory entry's address", async () => {
    const r = await fetch(
      await h.request(
        "researcher",
        `/api/negotiations?participantId=pharmaco&catalog=true&providerDid=${encodeURIComponent(NEWCOMER_DID)}`,
      ),
    );
    expect(r.status).toBe(200);
    expect(((await r.json()) as Record<string, unknown>)["dspace:participantId"]).toBe(ALPHA_DID);
  });
});

describe("negotiate action", () => {
  it("no offer chosen: the offer group is named", async () => {
    expect(await negotiate({ counterPartyAddress: "http://127.0.0.1:9/dsp" })).toEqual({
      error: "Choose one of the provider's offers first.",
      detail: null,
      fields: [{ field: "offer", message: "Choose one of the provider's offers first." }],
    });
  });

  it("reads its fields trimmed, as the other dataspace forms do: the own context with spaces around is the own", async () => {
    expect(
      await negotiate({ participant: " pharmaco ", counterPartyAddress: "http://127.0.0.1:9/dsp" }),
    ).toEqual({
      error: "Choose one of the provider's offers first.",
      detail: null,
      fields: [{ field: "offer", message: "Choose one of the provider's offers first." }],
    });
  });

  it("an offer without its asset and no DSP address: the spec's text, the service's fields as the form's", async () => {
    const r = await negotiate({ offer: JSON.stringify(["", "offer-1"]), counterPartyAddress: "" });
    expect(r).toMatchObject({
      error: NEGOTIATION_FIELDS_REQUIRED,
      fields: [
        { field: "counterPartyAddress", message: "Required" },
        { field: "offer", message: "Required" },
      ],
    });
  });
});
