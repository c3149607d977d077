import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../server/config";
import { createVerifier, type DocumentCache } from "../../server/credentials/verify";
import { UPSTREAM_MAX_BYTES } from "../../server/http/limits";
import type { GraphStore } from "../../server/graph";
import { createDevWallet } from "../../server/eudi/dev-wallet";
import type { KeyStore } from "../../server/eudi/keys";
import { createRemoteVerifier } from "../../server/eudi/remote-verifier";
import { createIssuerTrust } from "../../server/eudi/trust";
import type { ComponentDeps } from "../../server/operator/component-model";
import { createProbes } from "../../server/operator/component-probes";
import { createDiscovery } from "../../server/operator/discovery";
import type { Directory } from "../../server/operator/directory";
import type { MockDsp } from "../../server/operator/mock-dsp";
import { startUpstreamDouble, type UpstreamDouble } from "../support/upstream-double";

/**
 * The upstream reads outside the dataspace clients' pool — DID documents and status lists
 * (server/credentials), EUDI issuer metadata, the remote verifier and the development wallet's reads of
 * a verifier (server/eudi), remote
 * catalogues of federated discovery (server/operator) — read their answers through `cappedText`: an
 * answer of 40 MB (valid JSON, sent chunked without a length, as fast as the hub reads) is refused
 * once it passes UPSTREAM_MAX_BYTES, within the time-out, without reading it to its end. Before,
 * each was read whole (`res.json()`) and accepted.
 */

const HUGE = 40 * 1024 * 1024;
const TIMEOUT_MS = 5000;
let site: UpstreamDouble;
let sent: { bytes: number; closed?: boolean };

/** `json` padded to 40 MB at `path` of the double */
function huge(method: string, path: string, json: Record<string, unknown>) {
  sent = { bytes: 0 };
  site.on(method, path, { huge: { json, bytes: HUGE, sent } });
}

/**
 * `run`'s outcome, time, and the most the process's heap and buffers grew while it ran (sampled);
 * the answer must not have been read to its end, nor the memory grown by its size
 */
async function bounded<T>(run: () => Promise<T>): Promise<T | Error> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, used())), 2);
  const t0 = performance.now();
  const out = await run().catch((e: unknown) => e as Error);
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, used());
  console.log(
    `read ${(sent.bytes / 2 ** 20).toFixed(1)} MB of ${HUGE / 2 ** 20} MB in ${ms.toFixed(0)} ms, memory +${((peak - before) / 2 ** 20).toFixed(1)} MB`,
  );
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(sent.bytes).toBeLessThan(UPSTREAM_MAX_BYTES + 8 * 2 ** 20);
  expect(peak - before).toBeLessThan(HUGE);
  return out;
}

beforeAll(async () => {
  site = await startUpstreamDouble();
});
afterAll(() => site.close());

describe("an upstream answer larger than an upstream answer may be", () => {
  it("is refused as the issuer's DID document: the credential's signature is not checked", async () => {
    const did = "did:web:issuer.example";
    const cache: DocumentCache = { read: (_url, load) => load(), peek: () => undefined };
    const verifier = createVerifier({
      issuerDid: did,
      didDocumentUrl: () => `${site.url}/did.json`,
      allowedOrigins: [site.url],
      timeoutMs: TIMEOUT_MS,
      statusLists: cache,
      didDocuments: cache,
    });
    huge("GET", "/did.json", { id: did, verificationMethod: [] });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const jwt = `${b64({ alg: "ES256", kid: `${did}#key-1` })}.${b64({})}.c2ln`;
    const result = await bounded(() =>
      verifier.verify({ id: "urn:c", issuer: did, proof: { jwt } }, new Date(), new Map()),
    );
    expect(result).toMatchObject({
      verified: false,
      checks: { signature: { ok: false, detail: "the answer is larger than an upstream answer may be" } },
    });
  });

  it("is refused as a trusted PID issuer's metadata: its keys are not trusted", async () => {
    const { exportJWK, generateKeyPair } = await import("jose");
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const issuer = `${site.url}/pid`;
    const keys = [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }];
    huge("GET", "/.well-known/jwt-vc-issuer/pid", { issuer, jwks: { keys } });
    const trust = createIssuerTrust({ trustedIssuers: [issuer], timeoutMs: TIMEOUT_MS });
    expect(await bounded(() => trust.resolve(issuer, "k1"))).toBeNull();
  });

  it("is refused from the remote verifier, on starting a presentation and on reading its response", async () => {
    const verifier = createRemoteVerifier(site.url, TIMEOUT_MS);
    huge("POST", "/ui/presentations", { transaction_id: "t", client_id: "c", request_uri: "https://v/r" });
    const started = await bounded(() => verifier.initiate({ nonce: "n", dcqlQuery: {} }));
    expect(started).toMatchObject({ code: "UND_ERR_RES_EXCEEDED_MAX_SIZE" });
    huge("GET", "/ui/presentations/t", { vp_token: "x" });
    const answered = await bounded(() => verifier.walletResponse("t"));
    expect(answered).toMatchObject({ code: "UND_ERR_RES_EXCEEDED_MAX_SIZE" });
  });

  it("is refused as a verifier's request object read by the development wallet", async () => {
    const wallet = createDevWallet({
      keys: {} as KeyStore, // the wallet's keys, graph and issuer are not asked for to read a request
      graph: {} as GraphStore,
      issuer: () => Promise.reject(new Error("not asked for")),
      publicUrl: site.url,
      runtime: { internalOrigin: undefined },
    });
    huge("GET", "/request.jwt", { client_id: "x" });
    const link = `openid4vp://?request_uri=${encodeURIComponent(`${site.url}/request.jwt`)}`;
    expect(await bounded(() => wallet.inspect(link))).toMatchObject({
      code: "UND_ERR_RES_EXCEEDED_MAX_SIZE",
    });
  });

  it("is refused as a remote catalogue of federated discovery: the target is not readable", async () => {
    huge("POST", "/dsp/catalog/request", { "dcat:dataset": [{ "odrl:hasPolicy": [{}] }] });
    const entry = {
      id: "far",
      did: "did:web:far",
      displayName: "Far",
      catalogueUrl: `${site.url}/dsp/catalog/request`,
    };
    const discovery = createDiscovery({
      config: { publicUrl: "http://127.0.0.1:1", upstreamTimeoutMs: TIMEOUT_MS, crawlerToken: "t" } as Config,
      graph: { version: () => 0 },
      directory: { list: async () => [entry], version: () => 0 } as unknown as Directory,
      mockDsp: {} as MockDsp,
    });
    const check = await bounded(() => discovery.runCheck());
    expect(check).toMatchObject({
      targets: [
        { reachable: false, datasets: 0, error: "the answer is larger than an upstream answer may be" },
      ],
    });
    discovery.close();
  });

  it("is not read by the identity hub's probe, which lets the connection go at once", async () => {
    huge("GET", "/hub", {});
    const deps = {
      config: { upstreamTimeoutMs: TIMEOUT_MS },
      dataspace: {
        runtime: {
          identityHub: { baseUrl: `${site.url}/hub` },
          connector: { listParticipantContexts: async () => [] },
        },
      },
    } as unknown as ComponentDeps;
    const probes = createProbes(deps, () => undefined as never);
    const outcome = await bounded(() => probes.probe("identity-hub"));
    expect(outcome).toMatchObject({
      health: "up",
      observed: expect.stringMatching(/^reachable \(HTTP 200\)/),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sent.closed).toBe(true);
  });
});
