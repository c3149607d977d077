import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalDataspace, type LocalDataspace } from "../../server/local-dataspace";
import { dataspaceEnvVia, startFaultProxy, type FaultMode, type FaultProxy } from "../support/fault-proxy";
import { startNlqBackendDouble, type NlqBackendDouble } from "../support/nlq-backend-double";
import { startTestServer, type TestServer } from "../support/server";
import { signIn, type Signed } from "../support/signin";

/**
 * Upstream faults, black-box: the hub runs as a separate server whose connector, token endpoint,
 * tenant manager, issuer, identity hub and language back end (NLQ_PROXY_URL) are all reached
 * through a fault proxy (tests/support/fault-proxy.ts) in front of the real embedded dataspace and
 * a language back-end double. For every route that calls an upstream and every fault (connection
 * refused, 500, garbage JSON, slower than UPSTREAM_TIMEOUT_MS, connection cut mid-body, no answer, a
 * body that stalls or drips, 100 MB, a redirect to itself): the answer
 * is JSON, the spec's fallback (200) or a 4xx/502/503, never a 500, within the time-out plus one
 * second; and after recovery the same call answers as it did before the fault.
 *
 * RELIABILITY_OUT_FAULTS=<file> writes the table of statuses and times as JSON.
 */

const TIMEOUT_MS = 800;
const BUDGET_MS = TIMEOUT_MS + 1000;
const FAULTS: FaultMode[] = [
  "refused",
  "500",
  "garbage",
  "slow",
  "cut",
  "hang",
  "stall",
  "drip",
  "huge",
  "redirect",
];

let local: LocalDataspace;
let localDir: string;
let nlq: NlqBackendDouble;
let proxy: FaultProxy;
let hub: TestServer;
let admin: Signed;

beforeAll(async () => {
  localDir = mkdtempSync(path.join(tmpdir(), "hub-faults-upstream-"));
  local = await startLocalDataspace({
    dataDir: localDir,
    dataSource: async () => ({ resourceType: "Bundle", type: "collection", entry: [] }),
  });
  nlq = await startNlqBackendDouble("template");
  proxy = await startFaultProxy({
    routes: { "": local.url, "/nlq": nlq.url },
    slowMs: TIMEOUT_MS + 700,
  });
  hub = await startTestServer({
    ...dataspaceEnvVia(proxy, local),
    NLQ_PROXY_URL: `${proxy.url}/nlq`,
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  admin = await signIn(hub.url, "admin");
});
afterAll(async () => {
  await hub?.close();
  await proxy?.close();
  await nlq?.close();
  await local?.close();
  rmSync(localDir, { recursive: true, force: true });
});

let n = 0;
const unique = () => `f${Date.now().toString(36)}${(n++).toString(36)}`;

interface Call {
  name: string;
  method: string;
  path: string;
  body?: () => unknown;
}

const CALLS: Call[] = [
  { name: "participants", method: "GET", path: "/api/participants" },
  {
    name: "onboard participant",
    method: "POST",
    path: "/api/participants",
    body: () => ({ displayName: `Klinik ${unique()}`, role: "DATA_HOLDER" }),
  },
  {
    name: "participant credentials",
    method: "GET",
    path: "/api/participants/alphaklinik-berlin/credentials",
  },
  { name: "negotiations", method: "GET", path: "/api/negotiations?participantId=pharmaco" },
  {
    name: "provider catalogue",
    method: "GET",
    // the embedded dataspace as a configured connector: the hub cannot know its DSP addresses, and the
    // directory's seeded ones are the hub's demonstration catalogues, so the address is given
    get path() {
      const address = `${local.protocolBaseUrl}/alphaklinik-berlin/2025-1`;
      return `/api/negotiations?participantId=pharmaco&catalog=true&providerDid=did:web:alpha-klinik.de:participant&counterPartyAddress=${encodeURIComponent(address)}`;
    },
  },
  {
    name: "start negotiation",
    method: "POST",
    path: "/api/negotiations",
    body: () => ({
      participantId: "pharmaco",
      counterPartyAddress: "http://127.0.0.1:9/api/dsp",
      counterPartyId: "alphaklinik-berlin",
      assetId: "fhir-cohort-bundle",
      offerId: unique(),
    }),
  },
  { name: "one negotiation", method: "GET", path: "/api/negotiations/n-404?participantId=pharmaco" },
  { name: "transfers", method: "GET", path: "/api/transfers?participantId=pharmaco" },
  {
    name: "start transfer",
    method: "POST",
    path: "/api/transfers",
    body: () => ({
      participantId: "pharmaco",
      contractId: unique(),
      counterPartyAddress: "http://127.0.0.1:9/dsp",
    }),
  },
  { name: "one transfer", method: "GET", path: "/api/transfers/t-404?participantId=pharmaco" },
  { name: "asset groups", method: "GET", path: "/api/assets" },
  { name: "assets of one", method: "GET", path: "/api/assets?participantId=alphaklinik-berlin" },
  {
    name: "create asset",
    method: "POST",
    path: "/api/assets",
    body: () => ({ participantId: "alphaklinik-berlin", assetId: unique(), name: "Fault asset" }),
  },
  { name: "tasks", method: "GET", path: "/api/tasks" },
  { name: "credentials", method: "GET", path: "/api/credentials" },
  { name: "credential definitions", method: "GET", path: "/api/credentials/definitions" },
  {
    name: "request credential",
    method: "POST",
    path: "/api/credentials/request",
    body: () => ({ participantContextId: "lmc", credentialType: "DataQualityLabelCredential" }),
  },
  {
    name: "revoke credential",
    method: "DELETE",
    path: "/api/credentials/urn:uuid:00000000-0000-0000-0000-000000000000",
  },
  { name: "tenants", method: "GET", path: "/api/admin/tenants" },
  { name: "components", method: "GET", path: "/api/admin/components" },
  { name: "policies", method: "GET", path: "/api/admin/policies?participantId=alphaklinik-berlin" },
  {
    name: "ask (language back end)",
    method: "POST",
    path: "/api/nlq",
    body: () => ({ question: `Which patients ${unique()} have something no template knows?` }),
  },
];

async function call(c: Call): Promise<{ status: number; ms: number; json: boolean; body: string }> {
  const t0 = performance.now();
  let res: Response;
  let body: string;
  try {
    res = await admin.api(c.path, {
      method: c.method,
      ...(c.body ? { headers: { "content-type": "application/json" }, body: JSON.stringify(c.body()) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    body = await res.text();
  } catch (e) {
    // no answer at all: a row of the table, not the end of the run
    return { status: 0, ms: performance.now() - t0, json: false, body: String(e) };
  }
  const ms = performance.now() - t0;
  const json = res.status === 204 || /^application\/json/.test(res.headers.get("content-type") ?? "");
  return { status: res.status, ms, json, body: body.slice(0, 160) };
}

describe("every upstream-calling route under every fault", () => {
  const table: Record<string, Record<string, string>> = {};

  it("answers the fallback or 4xx/502/503 within the time-out + 1 s, and recovers", async () => {
    const baseline = new Map<string, number>();
    for (const c of CALLS) {
      const r = await call(c);
      baseline.set(c.name, r.status);
      table[c.name] = { ok: String(r.status) };
      // 503: credential issuance with a configured connector has no issuer DID setting (see docs/reliability.md)
      expect(r.status === 503 || r.status < 500, `${c.name} healthy: ${r.status} ${r.body}`).toBe(true);
    }
    const problems: string[] = [];
    for (const fault of FAULTS) {
      for (const c of CALLS) {
        await proxy.setMode(fault);
        const r = await call(c);
        table[c.name][fault] = `${r.status} ${Math.round(r.ms)}ms`;
        if (r.status === 500 || r.status > 503) problems.push(`${c.name} [${fault}] → ${r.status} ${r.body}`);
        // a connector that fails to answer is not a missing data permit
        if (r.status === 403 && baseline.get(c.name) !== 403)
          problems.push(`${c.name} [${fault}] → 403 ${r.body}`);
        if (!r.json) problems.push(`${c.name} [${fault}] not JSON: ${r.body}`);
        if (r.ms > BUDGET_MS) problems.push(`${c.name} [${fault}] took ${Math.round(r.ms)} ms`);
        await proxy.setMode("ok");
        const again = await call(c);
        if (again.status !== baseline.get(c.name))
          problems.push(
            `${c.name} after ${fault}: ${again.status}, before the fault ${baseline.get(c.name)}: ${again.body}`,
          );
      }
    }
    console.log("[faults] status and time per route and fault\n", JSON.stringify(table, null, 1));
    if (process.env.RELIABILITY_OUT_FAULTS)
      writeFileSync(process.env.RELIABILITY_OUT_FAULTS, JSON.stringify(table, null, 2));
    expect(problems).toEqual([]);
  }, 240_000);

  it("keeps /api/health answering while every upstream is down", async () => {
    await proxy.setMode("refused");
    try {
      const t0 = performance.now();
      const res = await fetch(`${hub.url}/api/health`);
      expect(res.status).toBe(200);
      expect(performance.now() - t0).toBeLessThan(BUDGET_MS);
    } finally {
      await proxy.setMode("ok");
    }
  });
});
