import { BlockList, isIP } from "node:net";

/**
 * What kind of address an IP address is, for the addresses a pull may connect to (decision 0106), and the
 * private networks PULL_PRIVATE_NETWORKS may open to it. Node's `BlockList` matches IPv4-mapped IPv6
 * addresses (`::ffff:127.0.0.1`) by their IPv4 rules.
 */

export type AddressKind =
  "loopback" | "private" | "link-local" | "unspecified" | "multicast" | "reserved" | "public";

/** the ranges of each kind but public; 100.64.0.0/10 (shared address space, RFC 6598) counts as private */
const RANGES: readonly (readonly [Exclude<AddressKind, "public">, string, number])[] = [
  ["unspecified", "0.0.0.0", 8],
  ["loopback", "127.0.0.0", 8],
  ["link-local", "169.254.0.0", 16],
  ["private", "10.0.0.0", 8],
  ["private", "172.16.0.0", 12],
  ["private", "192.168.0.0", 16],
  ["private", "100.64.0.0", 10],
  ["multicast", "224.0.0.0", 4],
  ["reserved", "240.0.0.0", 4],
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  ["link-local", "fe80::", 10],
  ["private", "fc00::", 7],
  ["multicast", "ff00::", 8],
];

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

const lists = new Map<AddressKind, BlockList>();
for (const [kind, network, prefix] of RANGES) {
  const list = lists.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family(network));
  lists.set(kind, list);
}

/** the kind of an IP address (IPv4 or IPv6, without brackets) */
export function addressKind(address: string): AddressKind {
  for (const [kind, list] of lists) if (list.check(address, family(address))) return kind;
  return "public";
}

/** the private ranges, as PULL_PRIVATE_NETWORKS's refusal names them */
export const PRIVATE_RANGES = RANGES.filter(([k]) => k === "private")
  .map(([, n, p]) => `${n}/${p}`)
  .join(", ");

/** a CIDR of PULL_PRIVATE_NETWORKS: within one of the private ranges; else why not */
export function privateNetworkProblem(cidr: string): string | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  const address = m?.[1] ?? "";
  const prefix = Number(m?.[2]);
  if (!m || !isIP(address) || prefix > (isIP(address) === 6 ? 128 : 32))
    return `"${cidr}" is not a network in CIDR notation such as 10.96.0.0/12`;
  const within = RANGES.some(([kind, network, p]) => {
    if (kind !== "private" || prefix < p || family(network) !== family(address)) return false;
    const one = new BlockList();
    one.addSubnet(network, p, family(network));
    return one.check(address, family(address));
  });
  return within ? undefined : `"${cidr}" is not within a private range (${PRIVATE_RANGES})`;
}

/** the networks as one list to check addresses against (none: an empty list) */
export function networkList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split("/");
    list.addSubnet(address!, Number(prefix), family(address!));
  }
  return list;
}
