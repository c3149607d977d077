import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIssuerTrust } from "./trust";

/** A trusted PID issuer over real HTTP: its SD-JWT VC issuer metadata with the keys inline. */
describe("trusted issuers' keys", () => {
  let server: Server;
  let issuer: string;
  let requests = 0;
  let failNext = 0;
  let keys: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end();
        return;
      }
      if (req.url !== "/.well-known/jwt-vc-issuer/pid") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ issuer, jwks: { keys } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pid`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

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
    requests = 0;
    const both = await Promise.all([t.resolve(issuer, "k256"), t.resolve(issuer, "k256")]);
    expect(both.every((k) => k !== null)).toBe(true);
    expect(await t.resolve(issuer, "k256")).not.toBeNull();
    expect(requests).toBe(1);
  });

  it("does not keep a failed read: the next resolve reads again", async () => {
    const t = trust();
    requests = 0;
    failNext = 1;
    expect(await t.resolve(issuer, "k256")).toBeNull();
    expect(await t.resolve(issuer, "k256")).not.toBeNull();
    expect(requests).toBe(2);
  });

  it("refuses an issuer not on the list and a key id the issuer does not publish", async () => {
    const t = trust();
    expect(await t.resolve("http://127.0.0.1:1/other", "k256")).toBeNull();
    expect(await t.resolve(issuer, "unknown")).toBeNull();
  });
});
