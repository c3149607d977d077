import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { buildConnector } from "undici";
import { addressKind, networkList, type AddressKind } from "../config/networks";

/**
 * The connections of a pull (decision 0106): the address actually connected to is checked when the
 * connection is made, on the pull's own connection pool (pooled-fetch.ts `connect`), so a provider's DNS
 * that answers an address inside the hub's network at pull time (rebinding) is refused before any byte
 * is sent. What a connection may reach depends only on the host as the endpoint writes it, which is the
 * host the pull was allowed by (address.ts `dataPlaneUrl` compares hosts as written):
 *  - never a link-local (169.254.0.0/16, fe80::/10: cloud metadata), unspecified (0.0.0.0/8, ::),
 *    multicast or reserved (240.0.0.0/4) address;
 *  - a loopback address only when the host is itself a loopback address or `localhost`;
 *  - a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) only when the host is itself an
 *    IP address (the provider's DSP address, or the operator's directory entry, wrote it), or when it is
 *    within PULL_PRIVATE_NETWORKS;
 *  - any public address.
 * An IP address host is checked as it is, without DNS; a name's addresses as DNS answers them, and only
 * those allowed are connected to (none: refused).
 */

export const PULL_ADDRESS_REFUSED = "ERR_PULL_ADDRESS_REFUSED";

/** a pull's connection refused by the rules above: what the host was and which address it reached */
export class PullAddressRefused extends Error {
  readonly code = PULL_ADDRESS_REFUSED;
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: AddressKind,
  ) {
    super(`The pull does not connect to ${address} (${kind}) for ${host}`);
    this.name = "PullAddressRefused";
  }
}

/** the refusal somewhere in an error's cause chain (fetch and the upstream client wrap it) */
export function pullRefusalOf(e: unknown): PullAddressRefused | undefined {
  for (let c = e, depth = 0; c && depth < 8; c = (c as { cause?: unknown }).cause, depth++)
    if (c instanceof PullAddressRefused) return c;
  return undefined;
}

const LOOPBACK_NAMES = new Set(["localhost"]);

/** whether `host` (a name, or an IP address without brackets) may reach `address` (the rules above) */
export function connectionAllowed(
  host: string,
  address: string,
  privateNetworks: ReturnType<typeof networkList>,
): boolean {
  const kind = addressKind(address);
  const literal = isIP(host) !== 0;
  switch (kind) {
    case "public":
      return true;
    case "loopback":
      return (literal && addressKind(host) === "loopback") || LOOPBACK_NAMES.has(host.toLowerCase());
    case "private":
      return literal || privateNetworks.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
    default:
      return false;
  }
}

export interface PullConnectOptions {
  /** PULL_PRIVATE_NETWORKS (config `pullPrivateNetworks`) */
  privateNetworks: readonly string[];
  /** how names are resolved (default: the system's, `dns.lookup`); a test seam only */
  lookup?: LookupFunction;
}

type Connector = ReturnType<typeof buildConnector>;

/** the undici connector of the pull's pool: the rules above at connect time */
export function pullConnector(options: PullConnectOptions): Connector {
  const privateNetworks = networkList(options.privateNetworks);
  const resolve = options.lookup ?? (dnsLookup as unknown as LookupFunction);
  // net.connect calls it for names only: every address DNS gives, the refused ones left out
  const lookup = (
    hostname: string,
    opts: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, { ...opts, all: true }, (err, found) => {
      if (err) return callback(err, opts.all ? [] : "");
      const addresses = (Array.isArray(found) ? found : [{ address: found, family: 0 }]) as LookupAddress[];
      const allowed = addresses.filter((a) => connectionAllowed(hostname, a.address, privateNetworks));
      if (!allowed.length) {
        const first = addresses[0];
        const refused = first
          ? new PullAddressRefused(hostname, first.address, addressKind(first.address))
          : Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
        return callback(refused, opts.all ? [] : "");
      }
      if (opts.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
  const connect = buildConnector({ lookup } as buildConnector.BuildOptions);
  return (opts, callback) => {
    // an IP address is connected to as it is, without lookup: checked here
    if (isIP(opts.hostname) && !connectionAllowed(opts.hostname, opts.hostname, privateNetworks))
      return callback(new PullAddressRefused(opts.hostname, opts.hostname, addressKind(opts.hostname)), null);
    return connect(opts, callback);
  };
}
