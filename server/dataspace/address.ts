import { DSP_VERSION } from "../dataspace-protocol";

/**
 * The DSP address of a provider (spec section 4, POST /api/negotiations): trailing slashes
 * removed; kept when it already ends with `/2025-1`; `/2025-1` appended when it already contains
 * the counter-party id; otherwise `/<counterPartyId>/2025-1` appended. Without a counter-party
 * id there is nothing to insert, so only the version segment is appended.
 */
export function normaliseCounterPartyAddress(address: string, counterPartyId?: string): string {
  const trimmed = address.trim().replace(/\/+$/, "");
  const suffix = `/${DSP_VERSION}`;
  if (trimmed.endsWith(suffix)) return trimmed;
  if (!counterPartyId || trimmed.includes(counterPartyId)) return `${trimmed}${suffix}`;
  return `${trimmed}/${counterPartyId}${suffix}`;
}
