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

const httpUrl = (address: string | undefined): URL | undefined => {
  try {
    const url = new URL(address ?? "");
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The data plane address an endpoint data reference names, when a pull may GET it (decisions 0104, 0106): an
 * absolute http(s) URL without credentials on the host of the provider's DSP address (`providerAddress`, where
 * the contract was negotiated) or on a host the provider's entry in the operator's participant directory lists
 * (`listedHosts`, as the WHATWG URL parser writes hosts); any port: a data plane's public port is not its
 * protocol port; https when the DSP address is. Else why not, for the pull's audit entry
 * (`refused: <outcome>`) and its 502's `detail`: the provider names the address, and the hub must not GET
 * another one for it. Hosts are compared as written, never resolved (the connection checks the address it
 * reaches: pull-connect.ts).
 */
export function dataPlaneUrl(
  endpoint: string,
  providerAddress: string | undefined,
  listedHosts: readonly string[] = [],
): { url: URL } | { refused: { outcome: string; detail: string } } {
  const provider = httpUrl(providerAddress);
  const url = httpUrl(endpoint);
  const refused = (outcome: string, detail: string) => ({ refused: { outcome, detail } });
  if (!provider)
    return refused(
      "provider address unknown",
      "the contract's negotiation names no http(s) address of the provider",
    );
  if (!url) return refused("endpoint not an http(s) URL", "the endpoint is not an absolute http(s) URL");
  if (url.username || url.password)
    return refused("endpoint with credentials", "the endpoint carries credentials");
  if (url.hostname !== provider.hostname && !listedHosts.includes(url.hostname))
    return refused(
      "endpoint outside the provider's host",
      listedHosts.length
        ? `the endpoint's host ${url.hostname} is neither the provider's host ${provider.hostname} nor a data plane host of its directory entry (${listedHosts.join(", ")})`
        : `the endpoint's host ${url.hostname} is not the provider's host ${provider.hostname}`,
    );
  if (provider.protocol === "https:" && url.protocol !== "https:")
    return refused("endpoint not https", "the endpoint is http while the provider's address is https");
  return { url };
}
