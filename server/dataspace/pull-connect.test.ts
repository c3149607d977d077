import { describe, expect, it } from "vitest";
import { addressKind, networkList, privateNetworkProblem } from "../config/networks";
import { connectionAllowed, pullRefusalOf, PullAddressRefused } from "./pull-connect";

/**
 * Decision 0106: what a pull's connection may reach, by the host as the endpoint writes it (a name, or an IP
 * address) and the address it is about to connect to. pull-endpoint.test.ts drives the same rules through
 * the pull's own pool over real HTTP.
 */

const none = networkList([]);
const cluster = networkList(["10.96.0.0/12", "fd00:10::/64"]);

describe("the addresses a pull's connection may reach", () => {
  it.each([
    // [host, address, allowed with no PULL_PRIVATE_NETWORKS, allowed with the cluster's networks]
    ["dp.provider.example", "93.184.215.14", true, true],
    ["dp.provider.example", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", true, true],
    ["dp.provider.example", "127.0.0.1", false, false],
    ["dp.provider.example", "::1", false, false],
    ["dp.provider.example", "::ffff:127.0.0.1", false, false],
    ["dp.provider.example", "169.254.169.254", false, false],
    ["dp.provider.example", "::ffff:169.254.169.254", false, false],
    ["dp.provider.example", "fe80::1", false, false],
    ["dp.provider.example", "0.0.0.0", false, false],
    ["dp.provider.example", "::", false, false],
    ["dp.provider.example", "224.0.0.251", false, false],
    ["dp.provider.example", "ff02::1", false, false],
    ["dp.provider.example", "255.255.255.255", false, false],
    ["dp.provider.example", "10.96.0.10", false, true],
    ["dp.provider.example", "10.0.0.7", false, false],
    ["dp.provider.example", "172.17.0.2", false, false],
    ["dp.provider.example", "192.168.1.20", false, false],
    ["dp.provider.example", "100.64.0.1", false, false],
    ["dp.provider.example", "fd00:10::5", false, true],
    ["dp.provider.example", "fd12::5", false, false],
    ["localhost", "127.0.0.1", true, true],
    ["localhost", "::1", true, true],
    ["localhost", "169.254.169.254", false, false],
    ["127.0.0.1", "127.0.0.1", true, true],
    ["127.0.0.2", "127.0.0.2", true, true],
    ["::1", "::1", true, true],
    ["10.0.0.7", "10.0.0.7", true, true],
    ["fd12::5", "fd12::5", true, true],
    ["169.254.169.254", "169.254.169.254", false, false],
    ["fe80::1", "fe80::1", false, false],
    ["0.0.0.0", "0.0.0.0", false, false],
    ["224.0.0.1", "224.0.0.1", false, false],
  ])("%s reaching %s: %s, with PULL_PRIVATE_NETWORKS %s", (host, address, plain, withCluster) => {
    expect(connectionAllowed(host, address, none)).toBe(plain);
    expect(connectionAllowed(host, address, cluster)).toBe(withCluster);
  });

  it("names the kinds of addresses", () => {
    expect(
      ["8.8.8.8", "127.9.9.9", "10.1.1.1", "169.254.0.1", "0.1.2.3", "239.1.1.1", "240.0.0.1"].map(
        addressKind,
      ),
    ).toEqual(["public", "loopback", "private", "link-local", "unspecified", "multicast", "reserved"]);
  });

  it("finds a refusal wrapped in an error's causes", () => {
    const refusal = new PullAddressRefused("dp.example", "127.0.0.1", "loopback");
    expect(pullRefusalOf(new Error("fetch failed", { cause: new Error("x", { cause: refusal }) }))).toBe(
      refusal,
    );
    expect(pullRefusalOf(new Error("fetch failed", { cause: new Error("ECONNREFUSED") }))).toBeUndefined();
  });
});

describe("PULL_PRIVATE_NETWORKS", () => {
  it("takes networks within the private ranges only", () => {
    for (const ok of [
      "10.0.0.0/8",
      "10.96.0.0/12",
      "172.18.0.0/16",
      "192.168.49.0/24",
      "100.64.0.0/10",
      "fd00::/8",
      "10.1.2.3/32",
    ])
      expect(privateNetworkProblem(ok), ok).toBeUndefined();
    for (const bad of [
      "0.0.0.0/0",
      "8.0.0.0/8",
      "10.0.0.0/7",
      "127.0.0.0/8",
      "169.254.0.0/16",
      "fe80::/10",
      "::/0",
      "224.0.0.0/4",
    ])
      expect(privateNetworkProblem(bad), bad).toMatch(/is not within a private range \(10\.0\.0\.0\/8, /);
    for (const bad of ["10.0.0.0", "10.0.0.0/33", "fd00::/129", "cluster", "10.0.0.0/8/8", "10.0.0.256/24"])
      expect(privateNetworkProblem(bad), bad).toMatch(/is not a network in CIDR notation/);
  });
});
