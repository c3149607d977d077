import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PERMIT_ID, standInPermits } from "../../tests/support/permits";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createAuditLog } from "../audit/log";
import type { LookupFunction } from "node:net";
import { loadConfig } from "../config";
import { createDirectory, parseDirectoryInput } from "../operator/directory";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { createDataspace, type Dataspace } from "./index";
import { ENDPOINT_ADDRESS_REFUSED, ENDPOINT_NOT_PROVIDERS } from "./transfers";

/*
 * Decision 0104: a provider names the endpoint its endpoint data reference (EDR) points at, and the hub
 * GETs it with the EDR's token and hands the answer on. It GETs only the provider's own host (the host
 * of the DSP address the contract was negotiated with), an http(s) URL without credentials, and follows
 * no redirect; anything else is the spec's 502 before any request, a refusal on the audit log. The
 * consumer's connector is a double (real HTTP); the provider's data plane and "an internal service" of
 * the hub are node:http servers on 127.0.0.1 that record what reaches them.
 */

const CONSUMER = "pharmaco";
const NEGOTIATION = "neg-edr-1";
const AGREEMENT = "agreement-edr-1";
const TRANSFER = "tp-edr-1";
const ASSET = "asset-edr";

let connector: UpstreamDouble;
let internal: UpstreamDouble;
let plane: UpstreamDouble;
/** the paths a double was asked for */
const paths = (double: UpstreamDouble) => double.requests.map((r) => r.path);
const portOf = (double: UpstreamDouble) => new URL(double.url).port;
beforeAll(async () => {
  connector = await startUpstreamDouble();
  // stands for what the hub reaches and a provider must not: a database port, the cloud metadata address
  internal = (await startUpstreamDouble()).on("GET", /.*/, { json: { secret: "internal" } });
  // the provider's data plane: a bundle, or a redirect to the internal service when asked at /moved
  plane = (await startUpstreamDouble())
    .on("GET", /.*/, { json: { resourceType: "Bundle", type: "collection", entry: [] } })
    .on("GET", "/moved", {
      json: null,
      status: 302,
      headers: { Location: `http://localhost:${portOf(internal)}/secret` },
    });
});
afterAll(async () => {
  await connector?.close();
  await internal?.close();
  await plane?.close();
});

const opened: { ds: Dataspace; db: Db }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.ds.close();
    o.db.close();
  }
  internal.requests.length = 0;
  plane.requests.length = 0;
});

const PROVIDER_DID = "did:web:provider.test";

/** what the hub's directory and its name resolution say (decision 0106) */
interface Network {
  /** the provider's directory entry lists these data-plane hosts (the entry is added when given) */
  dataPlaneHosts?: unknown[];
  /** written to the directory as it is, past the API's validation (an entry written before a rule) */
  storedHosts?: string[];
  /** names the pull's connections resolve, to one address each (else the system's resolver) */
  resolves?: Record<string, string>;
}

/** a resolver of the pull's pool: the names given, each to its address; what it was asked */
function resolver(names: Record<string, string>) {
  const asked: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...a: unknown[]) => void) => {
    asked.push(hostname);
    const address = names[hostname];
    if (!address)
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }));
    const family = address.includes(":") ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
  return { lookup, asked };
}

/**
 * The consumer's hub, its connector telling a STARTED pull transfer under an agreement negotiated with the
 * provider (`PROVIDER_DID`) at `providerAddress`, and an EDR naming `endpoint`; `fetch` the hub's (default:
 * its pooled ones); the directory and name resolution as `network` says.
 */
async function hub(
  providerAddress: string | undefined,
  endpoint: string,
  fetch?: typeof globalThis.fetch,
  network: Network = {},
) {
  connector.reset();
  connector
    .on("GET", `/m/v4beta/transferprocesses/${TRANSFER}`, {
      json: { "@id": TRANSFER, state: "STARTED", contractId: AGREEMENT, assetId: ASSET },
    })
    .on("GET", `/m/v4beta/contractnegotiations/${NEGOTIATION}`, {
      json: {
        "@id": NEGOTIATION,
        state: "FINALIZED",
        contractAgreementId: AGREEMENT,
        counterPartyId: PROVIDER_DID,
        ...(providerAddress ? { counterPartyAddress: providerAddress } : {}),
      },
    })
    .on("GET", `/m/v3/edrs/${TRANSFER}/dataaddress`, {
      json: { "@type": "DataAddress", endpoint, authorization: "edr-token", authType: "bearer" },
    });
  const db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  const audit = await createAuditLog(rel, db);
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: ":memory:",
    PUBLIC_URL: "http://127.0.0.1:3994",
    CONNECTOR_MANAGEMENT_URL: `${connector.url}/m`,
    CONNECTOR_PARTICIPANT_ID: CONSUMER,
    UPSTREAM_TIMEOUT_MS: "3000",
    DEMO_RECORDS: "off",
  });
  const names = network.resolves ? resolver(network.resolves) : undefined;
  const ds = await createDataspace(config, {
    db,
    rel,
    audit,
    permits: standInPermits,
    fetch,
    pullLookup: names?.lookup,
  });
  opened.push({ ds, db });
  // the operator's directory, wired as the container wires it (services.ts)
  const directory = await createDirectory(rel, audit, config.publicUrl);
  ds.useDirectory(directory.entryOfDid);
  if (network.dataPlaneHosts) {
    const entry = { did: PROVIDER_DID, displayName: "Provider", dataPlaneHosts: network.dataPlaneHosts };
    await directory.add(parseDirectoryInput(entry), "admin");
  }
  if (network.storedHosts)
    await directory.add(
      {
        did: PROVIDER_DID,
        displayName: "Provider",
        catalogueUrl: null,
        country: null,
        dataPlaneHosts: network.storedHosts,
      },
      "admin",
    );
  await ds.runtime.contractPermits.record({
    negotiationId: NEGOTIATION,
    participantId: CONSUMER,
    assetId: ASSET,
    permitId: PERMIT_ID,
    disclosure: "pseudonymised",
    datasets: [],
  });
  await ds.runtime.contractPermits.setAgreement(NEGOTIATION, AGREEMENT);
  const pulls = async () =>
    (await audit.list({ limit: 100 }))
      .filter((e) => e.action === "transfer.pull")
      .map((e) => ({ actor: e.actor, target: e.target, outcome: e.outcome }));
  return { ds, pulls, asked: names?.asked ?? [] };
}

const pull = (ds: Dataspace) => ds.pullTransferData(CONSUMER, TRANSFER, "researcher");
const TARGET = `${CONSUMER}: ${TRANSFER} (data permit ${PERMIT_ID}, pseudonymised)`;

describe("the pull GETs only the provider's own host", () => {
  it("pulls from the provider's data plane on the host of its DSP address, on another port", async () => {
    const { ds, pulls } = await hub(
      "http://127.0.0.1:19194/api/dsp/2025-1",
      `http://127.0.0.1:${portOf(plane)}/public/${TRANSFER}`,
    );
    const got = await pull(ds);
    expect(got).toMatchObject({
      transferId: TRANSFER,
      permitId: PERMIT_ID,
      data: { resourceType: "Bundle" },
    });
    expect(paths(plane)).toEqual([`/public/${TRANSFER}`]);
    expect(await pulls()).toEqual([{ actor: "researcher", target: TARGET, outcome: "success" }]);
  });

  const provider = "http://localhost:19194/api/dsp/2025-1";

  it("refuses a transfer whose contract no data permit of the hub backs (403), on the audit log", async () => {
    const { ds, pulls } = await hub(provider, `http://localhost:${portOf(plane)}/public/${TRANSFER}`);
    // a transfer under an agreement negotiated at the connector, not through the hub
    connector.on("GET", "/m/v4beta/transferprocesses/tp-elsewhere", {
      json: { "@id": "tp-elsewhere", state: "STARTED", contractId: "agreement-elsewhere", assetId: ASSET },
    });
    await expect(ds.pullTransferData(CONSUMER, "tp-elsewhere", "researcher")).rejects.toMatchObject({
      status: 403,
      message:
        "No data permit of the health data access body backs contract agreement-elsewhere: nothing is pulled under it",
    });
    expect(plane.requests).toEqual([]);
    expect(await pulls()).toEqual([
      {
        actor: "researcher",
        target: `${CONSUMER}: tp-elsewhere (contract agreement-elsewhere)`,
        outcome: "refused: no data permit",
      },
    ]);
  });

  const refusals: [string, () => string, string, string][] = [
    [
      "another host (an internal service of the hub's)",
      () => `http://127.0.0.1:${portOf(internal)}/secret`,
      "endpoint outside the provider's host",
      "the endpoint's host 127.0.0.1 is not the provider's host localhost",
    ],
    [
      "the cloud metadata address",
      () => "http://169.254.169.254/latest/meta-data/",
      "endpoint outside the provider's host",
      "the endpoint's host 169.254.169.254 is not the provider's host localhost",
    ],
    [
      "credentials in the URL",
      () => `http://user:secret@localhost:${portOf(internal)}/secret`,
      "endpoint with credentials",
      "the endpoint carries credentials",
    ],
    [
      "a scheme other than http(s)",
      () => "file:///etc/passwd",
      "endpoint not an http(s) URL",
      "the endpoint is not an absolute http(s) URL",
    ],
    [
      "a relative address",
      () => `/public/${TRANSFER}`,
      "endpoint not an http(s) URL",
      "the endpoint is not an absolute http(s) URL",
    ],
  ];
  it.each(refusals)(
    "refuses %s with the spec's 502 before any request, on the audit log",
    async (_what, endpoint, outcome, detail) => {
      const { ds, pulls } = await hub(provider, endpoint());
      await expect(pull(ds)).rejects.toMatchObject({
        status: 502,
        message: ENDPOINT_NOT_PROVIDERS,
        detail,
      });
      expect(paths(internal)).toEqual([]);
      expect(await pulls()).toEqual([
        { actor: "researcher", target: TARGET, outcome: `refused: ${outcome}` },
      ]);
    },
  );

  it("refuses an http endpoint of a provider whose DSP address is https (the token would go in clear)", async () => {
    const { ds, pulls } = await hub(
      "https://127.0.0.1:8443/api/dsp/2025-1",
      `http://127.0.0.1:${portOf(plane)}/public/${TRANSFER}`,
    );
    await expect(pull(ds)).rejects.toMatchObject({ status: 502, message: ENDPOINT_NOT_PROVIDERS });
    expect(paths(plane)).toEqual([]);
    expect(await pulls()).toEqual([
      { actor: "researcher", target: TARGET, outcome: "refused: endpoint not https" },
    ]);
  });

  it("refuses when the negotiation names no address of the provider", async () => {
    const { ds, pulls } = await hub(undefined, `http://127.0.0.1:${portOf(plane)}/public/${TRANSFER}`);
    await expect(pull(ds)).rejects.toMatchObject({ status: 502, message: ENDPOINT_NOT_PROVIDERS });
    expect(paths(plane)).toEqual([]);
    expect(await pulls()).toEqual([
      { actor: "researcher", target: TARGET, outcome: "refused: provider address unknown" },
    ]);
  });

  it.each([
    ["the hub's pooled fetch", undefined],
    ["the platform's fetch", globalThis.fetch],
  ])(
    "follows no redirect of the data plane (%s): 502, and the other host gets nothing",
    async (_f, fetch) => {
      const { ds, pulls } = await hub(
        "http://127.0.0.1:19194/api/dsp/2025-1",
        `http://127.0.0.1:${portOf(plane)}/moved`,
        fetch,
      );
      await expect(pull(ds)).rejects.toMatchObject({
        status: 502,
        message: "Failed to pull the transferred data",
      });
      expect(paths(plane)).toEqual(["/moved"]);
      expect(paths(internal)).toEqual([]);
      expect(await pulls()).toEqual([{ actor: "researcher", target: TARGET, outcome: "failure" }]);
    },
  );
});

describe("the pull GETs a data plane on a host the provider's directory entry lists (decision 0106)", () => {
  const provider = "http://localhost:19194/api/dsp/2025-1";
  const endpoint = () => `http://127.0.0.1:${portOf(plane)}/public/${TRANSFER}`;

  it("pulls from the listed host, which is not the host of the provider's DSP address", async () => {
    const { ds, pulls } = await hub(provider, endpoint(), undefined, {
      dataPlaneHosts: ["dataplane.provider.test", "127.0.0.1"],
    });
    expect(await pull(ds)).toMatchObject({ transferId: TRANSFER, data: { resourceType: "Bundle" } });
    expect(paths(plane)).toEqual([`/public/${TRANSFER}`]);
    expect(await pulls()).toEqual([{ actor: "researcher", target: TARGET, outcome: "success" }]);
  });

  it("refuses the same host when the provider's entry does not list it, or another provider's does", async () => {
    const { ds, pulls } = await hub(provider, endpoint(), undefined, {
      dataPlaneHosts: ["dataplane.provider.test"],
    });
    await expect(pull(ds)).rejects.toMatchObject({
      status: 502,
      message: ENDPOINT_NOT_PROVIDERS,
      detail:
        "the endpoint's host 127.0.0.1 is neither the provider's host localhost nor a data plane host of its directory entry (dataplane.provider.test)",
    });
    expect(paths(plane)).toEqual([]);
    expect(await pulls()).toEqual([
      { actor: "researcher", target: TARGET, outcome: "refused: endpoint outside the provider's host" },
    ]);
  });

  it("keeps https when the provider's DSP address is https, for a listed host too", async () => {
    const { ds, pulls } = await hub("https://dsp.provider.test/api/dsp/2025-1", endpoint(), undefined, {
      dataPlaneHosts: ["127.0.0.1"],
    });
    await expect(pull(ds)).rejects.toMatchObject({ status: 502, message: ENDPOINT_NOT_PROVIDERS });
    expect(paths(plane)).toEqual([]);
    expect(await pulls()).toEqual([
      { actor: "researcher", target: TARGET, outcome: "refused: endpoint not https" },
    ]);
  });
});

describe("the pull connects only to addresses its host allows (decision 0106)", () => {
  const planeAt = (host: string) => `http://${host}:${portOf(plane)}/public/${TRANSFER}`;
  const refusedWith = async (got: Awaited<ReturnType<typeof hub>>, outcome: string, detail: string) => {
    await expect(pull(got.ds)).rejects.toMatchObject({
      status: 502,
      message: ENDPOINT_ADDRESS_REFUSED,
      detail,
    });
    expect(paths(plane)).toEqual([]);
    expect(paths(internal)).toEqual([]);
    expect(await got.pulls()).toEqual([{ actor: "researcher", target: TARGET, outcome }]);
  };

  it("refuses a provider's name that resolves to a loopback address (DNS rebinding), before any request", async () => {
    const got = await hub("http://provider.test:19194/api/dsp/2025-1", planeAt("provider.test"), undefined, {
      resolves: { "provider.test": "127.0.0.1" },
    });
    await refusedWith(
      got,
      "refused: endpoint address loopback",
      "the endpoint's host provider.test resolves to 127.0.0.1, a loopback address, which a pull reaches only when the host is written as a loopback address or localhost",
    );
    expect(got.asked).toEqual(["provider.test"]);
  });

  it("refuses a listed name that resolves to the cloud metadata address", async () => {
    const got = await hub(
      "http://localhost:19194/api/dsp/2025-1",
      planeAt("dataplane.provider.test"),
      undefined,
      {
        dataPlaneHosts: ["dataplane.provider.test"],
        resolves: { "dataplane.provider.test": "169.254.169.254" },
      },
    );
    await refusedWith(
      got,
      "refused: endpoint address link-local",
      "the endpoint's host dataplane.provider.test resolves to 169.254.169.254, a link-local address, which a pull never connects to",
    );
  });

  it("refuses a private address a name resolves to, unless PULL_PRIVATE_NETWORKS holds it", async () => {
    const got = await hub("http://provider.test:19194/api/dsp/2025-1", planeAt("provider.test"), undefined, {
      resolves: { "provider.test": "10.0.0.7" },
    });
    await refusedWith(
      got,
      "refused: endpoint address private",
      "the endpoint's host provider.test resolves to 10.0.0.7, a private address outside PULL_PRIVATE_NETWORKS, which a pull reaches from a name only within those networks",
    );
  });

  it.each([
    ["listed by the directory", "http://localhost:19194/api/dsp/2025-1", ["169.254.169.254"]],
    ["the provider's own DSP host", "http://169.254.169.254/api/dsp/2025-1", undefined],
  ])("refuses 169.254.169.254 (%s) without connecting to it", async (_what, providerAddress, storedHosts) => {
    const got = await hub(providerAddress, "http://169.254.169.254/latest/meta-data/", undefined, {
      storedHosts,
      resolves: {},
    });
    await refusedWith(
      got,
      "refused: endpoint address link-local",
      "the endpoint's address is 169.254.169.254, a link-local address, which a pull never connects to",
    );
    expect(got.asked).toEqual([]);
  });

  it.each([
    ["an unspecified address", "0.0.0.0", "unspecified"],
    ["a multicast address", "224.0.0.1", "multicast"],
    ["an IPv4-mapped link-local address", "[::ffff:169.254.169.254]", "link-local"],
  ])("refuses %s written as the host", async (_what, host, kind) => {
    const got = await hub(`http://${host}:19194/api/dsp/2025-1`, `http://${host}:${portOf(plane)}/x`);
    await expect(pull(got.ds)).rejects.toMatchObject({ status: 502, message: ENDPOINT_ADDRESS_REFUSED });
    expect(await got.pulls()).toEqual([
      { actor: "researcher", target: TARGET, outcome: `refused: endpoint address ${kind}` },
    ]);
  });

  it("pulls from localhost, a loopback name, as from 127.0.0.1", async () => {
    const got = await hub("http://localhost:19194/api/dsp/2025-1", planeAt("localhost"), undefined, {
      resolves: { localhost: "127.0.0.1" },
    });
    expect(await pull(got.ds)).toMatchObject({ data: { resourceType: "Bundle" } });
    expect(paths(plane)).toEqual([`/public/${TRANSFER}`]);
    expect(got.asked).toEqual(["localhost"]);
  });
});
