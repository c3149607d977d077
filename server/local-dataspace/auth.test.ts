import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeContextId } from "../dataspace-protocol";
import type { LocalDataspace } from "./index";
import { bearerOf, startTestDataspace } from "../../tests/support/local-dataspace";

/**
 * How the embedded issuer and identity hub authenticate: the super-user's `x-api-key`, refused as EDC
 * IdentityHub / IssuerService 0.15.1 refuse it (answers seen from 0.15.1 itself, decision 0114); the
 * management API still takes the token endpoint's bearer token.
 */
const start = (dataDir = ":memory:") => startTestDataspace({ dataDir });
let local: LocalDataspace;
let bearer: string;
beforeAll(async () => {
  local = await start();
  bearer = await bearerOf(local);
});
afterAll(() => local?.close());

const b64 = (s: string) => Buffer.from(s).toString("base64");
const failed = (message: string) => [
  { message, type: "AuthenticationFailed", path: null, invalidValue: null },
];
/** one call to each API that takes the key: the issuer's credential query, a holder's credentials */
const apis = () => [
  (headers: HeadersInit) =>
    fetch(`${local.issuerUrl}/v1alpha/participants/${encodeContextId("issuer")}/credentials/query`, {
      method: "POST",
      headers: new Headers([...new Headers(headers), ["content-type", "application/json"]]),
      body: "{}",
    }),
  (headers: HeadersInit) =>
    fetch(`${local.identityHubUrl}/v1alpha/participants/${encodeContextId("lmc")}/credentials`, { headers }),
];
const answer = async (res: Response) => ({ status: res.status, body: await res.text() });

describe("the embedded issuer admin and identity APIs", () => {
  it("hand the hub one super-user key for both, of IdentityHub's form base64(context).secret", () => {
    expect(local.issuerApiKey).toBe(local.identityHubApiKey);
    expect(local.issuerApiKey).toMatch(new RegExp(`^${b64("super-user")}\\.[A-Za-z0-9+/]{86}==$`));
  });

  it("answer the super-user's key", async () => {
    for (const call of apis()) expect((await call({ "x-api-key": local.issuerApiKey })).status).toBe(200);
  });

  it("refuse no key, two keys, and the bearer token: 401 without a body", async () => {
    const none: HeadersInit[] = [
      {},
      [
        ["x-api-key", local.issuerApiKey],
        ["x-api-key", local.issuerApiKey],
      ],
      { authorization: bearer },
    ];
    for (const call of apis())
      for (const headers of none)
        expect(await answer(await call(headers))).toEqual({ status: 401, body: "" });
  });

  it("refuse a wrong key: 401 with EDC's error list, as 0.15.1 words it", async () => {
    const [principal] = local.issuerApiKey.split(".");
    for (const call of apis()) {
      for (const key of [`${principal}.d3Jvbmc=`, "no-dot", "a.b.c"]) {
        const res = await call({ "x-api-key": key });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual(failed("Invalid API token"));
      }
      const nobody = await call({ "x-api-key": `${b64("nobody")}.eA==` });
      expect(nobody.status).toBe(401);
      expect(await nobody.json()).toEqual(
        failed("Invalid Authentication 'nobody': An entity with ID 'nobody' does not exist."),
      );
      // a principal that is not base64: Java's decoder throws, 400 without a body
      expect(await answer(await call({ "x-api-key": "!!!.x" }))).toEqual({ status: 400, body: "" });
    }
  });

  it("leave the management API to the bearer token, and the status list open", async () => {
    const contexts = `${local.managementUrl}/${local.apiVersion}/participants`;
    expect((await fetch(contexts, { headers: { "x-api-key": local.issuerApiKey } })).status).toBe(401);
    expect((await fetch(contexts, { headers: { authorization: bearer } })).status).toBe(200);
    expect((await fetch(`${local.url}/issuer/status-list/revocation`)).status).toBe(200);
  });

  it("keep the key across a restart on the same data directory", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "local-dataspace-key-"));
    try {
      const first = await start(dir);
      const key = first.issuerApiKey;
      await first.close();
      const again = await start(dir);
      expect(again.issuerApiKey).toBe(key);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
