import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstreamDouble, type UpstreamDouble } from "../../tests/support/upstream-double";
import { createIssuerTrust } from "./trust";

/** A trusted PID issuer over real HTTP: its SD-JWT VC issuer metadata with the keys inline. */
describe("trusted issuers' keys", () => {
  let issuerSite: UpstreamDouble;
  let issuer: string;
  let failNext = 0;
  let keys: Record<string, unknown>[] = [];
  const requests = () => issuerSite.requests.length;

  beforeAll(async () => {
    issuerSite = (await startUpstreamDouble()).on("GET", "/.well-known/jwt-vc-issuer/pid", {
      reply: () => (failNext-- > 0 ? { status: 503 } : { json: { issuer, jwks: { keys } } }),
    });
    issuer = `${issuerSite.url}/pid`;
  });
  afterAll(() => issuerSite.close());

  const trust = () => createIssuerTrust({ trustedIssuers: [issuer], timeoutMs: 2000 });

  it("imports a published P-384 key without `alg` for ES384, as its curve says", async () => {
    const { publicKey } = await generateKeyPair("ES384", { extractable: true });
    keys = [{ ...(await exportJWK(publicKey)), kid: "k384" }];
    const key = await trust().resolve(issuer, "k384");
    expect(key).not.toBeNull();
    expect((key!.algorithm as EcKeyAlgorithm).namedCurve).toBe("P-384");
  });

  it("reads an issuer's metadata once for callers at the same time and while it is kept", async () => {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    keys = [{ ...(await exportJWK(publicKey)), kid: "k256", alg: "ES256" }];
    const t = trust();
    issuerSite.requests.length = 0;
    const both = await Promise.all([t.resolve(issuer, "k256"), t.resolve(issuer, "k256")]);
    expect(both.every((k) => k !== null)).toBe(true);
    expect(await t.resolve(issuer, "k256")).not.toBeNull();
    expect(requests()).toBe(1);
  });

  it("does not keep a failed read: the next resolve reads again", async () => {
    const t = trust();
    issuerSite.requests.length = 0;
    failNext = 1;
    expect(await t.resolve(issuer, "k256")).toBeNull();
    expect(await t.resolve(issuer, "k256")).not.toBeNull();
    expect(requests()).toBe(2);
  });

  it("refuses an issuer not on the list and a key id the issuer does not publish", async () => {
    const t = trust();
    expect(await t.resolve("http://127.0.0.1:1/other", "k256")).toBeNull();
    expect(await t.resolve(issuer, "unknown")).toBeNull();
  });
});
