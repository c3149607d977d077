import { describe, expect, it } from "vitest";
import type { ConnectorClient } from "./connector-client";
import { fetchProviderCatalog } from "./negotiations";
import { dspAddressOfCatalogueUrl } from "./provider-address";
import type { DataspaceRuntime, DirectoryLookup } from "./runtime";

/**
 * A catalogue request that names only the provider's DID (GET /api/negotiations?catalog=true without
 * counterPartyAddress) goes to the provider's DSP address as the hub knows it: an own context's (the
 * embedded dataspace), else the directory entry's catalogue address read as DSP 2025-1 writes it.
 */

const PROVIDER = "did:web:provider.example";
const HOSTED = "did:web:alpha-klinik.de:participant";

function runtime(opts: { directory?: DirectoryLookup; protocolBaseUrl?: string }) {
  const sent: Record<string, unknown>[] = [];
  const connector = {
    requestCatalog: async (_id: string, request: Record<string, unknown>) => {
      sent.push(request);
      return { "@type": "dcat:Catalog" };
    },
    listParticipantContexts: async () => [
      { "@id": "alphaklinik-berlin", identity: HOSTED, state: "ACTIVATED" },
      { "@id": "pharmaco", identity: "did:web:pharmaco.example", state: "ACTIVATED" },
    ],
  } as unknown as ConnectorClient;
  const rt = {
    connector,
    tenantManager: undefined,
    demoRecords: false,
    timeoutMs: 2_000,
    ...opts,
  } as unknown as DataspaceRuntime;
  return { rt, sent };
}

const directoryOf =
  (entries: Record<string, string | null>): DirectoryLookup =>
  async (did) =>
    did in entries ? { catalogueUrl: entries[did]!, dataPlaneHosts: [] } : undefined;

describe("the DSP address of a directory entry's catalogue address", () => {
  it("is the address without DSP 2025-1's `/catalog/request` (and without a query or trailing slash)", () => {
    expect(dspAddressOfCatalogueUrl("https://p.example/protocol/2025-1/catalog/request")).toBe(
      "https://p.example/protocol/2025-1",
    );
    expect(dspAddressOfCatalogueUrl("http://127.0.0.1:4100/api/mock-dsp/lmc/catalog/request/?x=1")).toBe(
      "http://127.0.0.1:4100/api/mock-dsp/lmc",
    );
  });

  it("is none for an address that is not a DSP catalogue request address, or none given", () => {
    for (const url of ["https://p.example/protocol/2025-1", "ftp://p.example/catalog/request", "", null])
      expect(dspAddressOfCatalogueUrl(url)).toBeUndefined();
  });
});

describe("a catalogue request by DID only", () => {
  it("goes to the directory entry's DSP address (before the fix: without any address, which EDC refuses)", async () => {
    const { rt, sent } = runtime({
      directory: directoryOf({ [PROVIDER]: "https://p.example/protocol/2025-1/catalog/request" }),
    });
    await fetchProviderCatalog(rt, "pharmaco", PROVIDER);
    expect(sent[0]).toMatchObject({
      counterPartyId: PROVIDER,
      counterPartyAddress: "https://p.example/protocol/2025-1",
    });
  });

  it("an explicit address wins over the directory, normalised as before", async () => {
    const { rt, sent } = runtime({
      directory: directoryOf({ [PROVIDER]: "https://p.example/protocol/2025-1/catalog/request" }),
    });
    await fetchProviderCatalog(rt, "pharmaco", PROVIDER, "https://other.example/dsp/2025-1/");
    expect(sent[0]!.counterPartyAddress).toBe("https://other.example/dsp/2025-1");
  });

  it("without an entry (or an entry without a catalogue address) and without an address: goes as before, no address", async () => {
    const { rt, sent } = runtime({ directory: directoryOf({ [PROVIDER]: null }) });
    await fetchProviderCatalog(rt, "pharmaco", PROVIDER);
    await fetchProviderCatalog(rt, "pharmaco", "did:web:unknown.example");
    expect(sent.map((r) => "counterPartyAddress" in r)).toEqual([false, false]);
  });

  it("a participant context of the own connector whose DSP the hub knows (the embedded dataspace) goes first", async () => {
    const { rt, sent } = runtime({
      protocolBaseUrl: "http://127.0.0.1:4200/api/dsp",
      directory: directoryOf({
        [HOSTED]: "http://hub.example/api/mock-dsp/alphaklinik-berlin/catalog/request",
      }),
    });
    await fetchProviderCatalog(rt, "pharmaco", HOSTED);
    expect(sent[0]!.counterPartyAddress).toBe("http://127.0.0.1:4200/api/dsp/alphaklinik-berlin/2025-1");
    // not hosted: the directory's
    await fetchProviderCatalog(rt, "pharmaco", PROVIDER);
    expect("counterPartyAddress" in sent[1]!).toBe(false);
  });
});
