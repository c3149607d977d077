import { DSP_VERSION } from "../dataspace-protocol";
import { didOfContext } from "./assets";
import type { DataspaceRuntime } from "./runtime";

/**
 * Where a provider's DSP endpoint is, for a catalogue request that names only the provider's DID
 * (GET /api/negotiations?catalog=true without `counterPartyAddress`; the negotiate page). A connector
 * (EDC 0.15 and the embedded one alike) sends a catalogue request only to an address; the DID alone
 * finds nobody. In this order:
 * 1. a participant context of the own connector with that DID, when the hub knows where the connector
 *    serves its contexts' DSP (the embedded dataspace: `<protocol base>/<context>/2025-1`);
 * 2. the operator's participant directory (server/operator/directory.ts): the entry of that DID, its
 *    catalogue address read as DSP 2025-1 writes it, `<DSP address>/catalog/request`: the DSP address is
 *    the catalogue address without that last path (and without a query or fragment, or trailing
 *    slashes), sent as it is; an address that does not end so names no DSP address;
 * 3. none: the request goes without an address, and the connector decides (EDC refuses it).
 */

const CATALOG_REQUEST = "/catalog/request";

/** The DSP address of a DSP 2025-1 catalogue request address (rule 2 above), undefined when it is not one. */
export function dspAddressOfCatalogueUrl(catalogueUrl: string | null | undefined): string | undefined {
  if (!catalogueUrl || !URL.canParse(catalogueUrl)) return undefined;
  const url = new URL(catalogueUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith(CATALOG_REQUEST)) return undefined;
  return `${url.origin}${path.slice(0, -CATALOG_REQUEST.length)}`;
}

/** The DSP address of an own participant context, when the hub knows where the connector serves it. */
export function hostedDspAddress(protocolBaseUrl: string, contextId: string): string {
  return `${protocolBaseUrl.replace(/\/+$/, "")}/${encodeURIComponent(contextId)}/${DSP_VERSION}`;
}

/** The DSP address of the provider `did` by the rules above; undefined when none is known. */
export async function resolveProviderAddress(rt: DataspaceRuntime, did: string): Promise<string | undefined> {
  if (rt.protocolBaseUrl) {
    const context = await hostedContextOf(rt, did);
    if (context) return hostedDspAddress(rt.protocolBaseUrl, context);
  }
  if (!rt.directory) return undefined;
  return dspAddressOfCatalogueUrl((await rt.directory(did))?.catalogueUrl);
}

/** the own connector's ACTIVATED participant context of `did` (its context list, as the read cache keeps it; failed: none) */
async function hostedContextOf(rt: DataspaceRuntime, did: string): Promise<string | undefined> {
  try {
    const contexts = await rt.connector.listParticipantContexts();
    return contexts.find((c) => (c.state ?? "ACTIVATED") === "ACTIVATED" && didOfContext(c) === did)?.["@id"];
  } catch {
    return undefined;
  }
}
