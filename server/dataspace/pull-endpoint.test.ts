import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PERMIT_ID, standInPermits } from "../../tests/support/permits";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createAuditLog } from "../audit/log";
import { loadConfig } from "../config";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { createDataspace, type Dataspace } from "./index";
import { ENDPOINT_NOT_PROVIDERS } from "./transfers";

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

/**
 * The consumer's hub, its connector telling a STARTED pull transfer under an agreement negotiated with the
 * provider at `providerAddress`, and an EDR naming `endpoint`; `fetch` the hub's (default: its pooled one).
 */
async function hub(providerAddress: string | undefined, endpoint: string, fetch?: typeof globalThis.fetch) {
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
    UPSTREAM_TIMEOUT_MS: "3000",
    DEMO_RECORDS: "off",
  });
  const ds = await createDataspace(config, { db, rel, audit, permits: standInPermits, fetch });
  opened.push({ ds, db });
  await ds.runtime.contractPermits.record({
    negotiationId: NEGOTIATION,
    participantId: CONSUMER,
    assetId: ASSET,
    permitId: PERMIT_ID,
    disclosure: "pseudonymised",
  });
  await ds.runtime.contractPermits.setAgreement(NEGOTIATION, AGREEMENT);
  const pulls = async () =>
    (await audit.list({ limit: 100 }))
      .filter((e) => e.action === "transfer.pull")
      .map((e) => ({ actor: e.actor, target: e.target, outcome: e.outcome }));
  return { ds, pulls };
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
