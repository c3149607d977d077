import { generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { issueSdJwtVc, presentSdJwtVc } from "../../server/eudi/sd-jwt";
import { type Json, holderKeys, eudiHarness } from "./eudi.support";

/**
 * Black-box tests of wallet sign-in (OpenID4VP): the embedded verifier with the development wallet
 * page, every refusal of a presentation (nonce, audience, expiry, signature, untrusted issuer,
 * tampered disclosure, replay), no-match, session hand-over exactly once, persistence across a
 * restart, and an external verifier (EUDI reference verifier API) played by a test double.
 * Forged presentations are built here with the development issuer (reachable through the server's
 * services, as a wallet's issuer would be) or with keys of our own.
 *
 * This file: presentations the verifier refuses.
 */

const h = eudiHarness();
const { start } = h;

const MARIA = { givenName: "", familyName: "", birthDate: "" };

async function directPost(request: Json, fields: Record<string, string>) {
  return fetch(request.response_uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A key-bound PID presentation from the development issuer, with each part overridable. */
async function presentation(
  request: Json,
  o: {
    aud?: string;
    nonce?: string;
    kbIat?: Date;
    issuedAt?: Date;
    identity?: typeof MARIA;
    holder?: Awaited<ReturnType<typeof holderKeys>>;
    signWith?: CryptoKey;
  } = {},
) {
  const holder = o.holder ?? (await holderKeys());
  const sdJwt = await h.server.services.eudi.devWallet!.issuePid(
    o.identity ?? MARIA,
    holder.publicJwk,
    o.issuedAt,
  );
  return presentSdJwtVc({
    sdJwt,
    disclose: ["given_name", "family_name", "birthdate"],
    holderKey: o.signWith ?? holder.privateKey,
    audience: o.aud ?? request.client_id,
    nonce: o.nonce ?? request.nonce,
    now: o.kbIat,
  });
}

const vp = (p: string) => JSON.stringify({ pid: [p] });

beforeAll(async () => {
  const n = await h.server.services.graph.getNode("patient-000001");
  Object.assign(MARIA, {
    givenName: n!.properties.givenName,
    familyName: n!.properties.familyName,
    birthDate: n!.properties.birthDate,
  });
});

describe("presentations the verifier refuses", () => {
  const refusals: [string, (r: Json) => Promise<string>, RegExp][] = [
    ["a wrong nonce", (r) => presentation(r, { nonce: "another-nonce" }), /nonce mismatch/],
    [
      "another audience",
      (r) => presentation(r, { aud: "redirect_uri:https://evil.example/cb" }),
      /audience mismatch/,
    ],
    ["a stale key binding", (r) => presentation(r, { kbIat: new Date(Date.now() - 3600_000) }), /too old/],
    [
      "an expired credential",
      (r) => presentation(r, { issuedAt: new Date(Date.now() - 2 * 365 * 24 * 3600_000) }),
      /expired/,
    ],
    [
      "a key binding by another key",
      async (r) => presentation(r, { signWith: (await holderKeys()).privateKey }),
      /key-binding signature is invalid/,
    ],
    [
      "an untrusted issuer",
      async (r) => {
        const issuer = await generateKeyPair("ES256");
        const holder = await holderKeys();
        const sdJwt = await issueSdJwtVc({
          issuer: "https://pid-issuer.evil.example",
          kid: "k1",
          privateKey: issuer.privateKey,
          holderJwk: holder.publicJwk,
          vct: "urn:eudi:pid:1",
          disclosable: {
            given_name: MARIA.givenName,
            family_name: MARIA.familyName,
            birthdate: MARIA.birthDate,
          },
          validForSeconds: 3600,
        });
        return presentSdJwtVc({
          sdJwt,
          disclose: ["given_name", "family_name", "birthdate"],
          holderKey: holder.privateKey,
          audience: r.client_id,
          nonce: r.nonce,
        });
      },
      /not on the trusted list/,
    ],
    [
      "a forged issuer signature",
      async (r) => {
        const p = await presentation(r);
        const [jwt, ...rest] = p.split("~");
        const [h, body, sig] = jwt.split(".");
        const forged = `${h}.${body}.${sig.startsWith("AAAA") ? "BBBB" : "AAAA"}${sig.slice(4)}`;
        return [forged, ...rest].join("~");
      },
      /issuer signature is invalid/,
    ],
    [
      "a smuggled disclosure",
      async (r) => {
        const p = await presentation(r);
        const parts = p.split("~");
        const smuggled = Buffer.from(JSON.stringify(["salt", "given_name", "Mallory"])).toString("base64url");
        return [parts[0], smuggled, ...parts.slice(1)].join("~");
      },
      /not referenced|sd_hash|invalid or repeated/,
    ],
    [
      "a birth date that does not exist",
      (r) => presentation(r, { identity: { ...MARIA, birthDate: "2026-02-30" } }),
      /birth date is not a date that exists/,
    ],
    [
      "no key binding",
      async (r) => {
        const p = await presentation(r);
        return p.slice(0, p.lastIndexOf("~") + 1);
      },
      /no key-binding JWT/,
    ],
  ];

  it.each(refusals)("refuses %s", async (_name, build, reason) => {
    const s = await start();
    const res = await directPost(s.request, { state: s.request.state, vp_token: vp(await build(s.request)) });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe("invalid_request");
    expect(body.error_description).toMatch(reason);
    const st = (await s.status()).body;
    expect(st.status).toBe("failed");
    expect(st.reason).toMatch(reason);
  });

  it("accepts one answer per request: a replayed direct_post is refused", async () => {
    const s = await start();
    const p = await presentation(s.request);
    expect((await directPost(s.request, { state: s.request.state, vp_token: vp(p) })).status).toBe(200);
    const replay = await directPost(s.request, { state: s.request.state, vp_token: vp(p) });
    expect(replay.status).toBe(400);
    expect((await replay.json()).error_description).toMatch(/already answered/);
    expect((await fetch(new URL(s.body.walletLink).searchParams.get("request_uri")!)).status).toBe(410);
    // the same presentation for another request: wrong nonce and unknown state
    const t = await start();
    const again = await directPost(t.request, { state: t.request.state, vp_token: vp(p) });
    expect(again.status).toBe(400);
    expect((await directPost(t.request, { state: "made-up", vp_token: vp(p) })).status).toBe(400);
  });

  it("expires: status says so, and neither the request nor an answer is accepted any more", async () => {
    const s = await start();
    await h.server.services.rel.db
      .updateTable("eudi_sessions")
      .set({ expires_at: Date.now() - 1000 })
      .where("sid", "=", s.body.sid)
      .execute();
    const st = (await s.status()).body;
    expect(st).toMatchObject({ status: "expired", reason: expect.stringMatching(/expired/) });
    expect((await fetch(new URL(s.body.walletLink).searchParams.get("request_uri")!)).status).toBe(410);
    const late = await directPost(s.request, {
      state: s.request.state,
      vp_token: vp(await presentation(s.request)),
    });
    expect(late.status).toBe(400);
    expect((await late.json()).error_description).toMatch(/expired/);
  });

  it("refuses malformed answers", async () => {
    const s = await start();
    const wrongType = await fetch(s.request.response_uri, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(wrongType.status).toBe(400);
    expect((await directPost(s.request, { vp_token: "x" })).status).toBe(400);
    const noPid = await directPost(s.request, {
      state: s.request.state,
      vp_token: JSON.stringify({ other: ["x"] }),
    });
    expect(noPid.status).toBe(400);
    expect((await noPid.json()).error_description).toMatch(/no presentation for the credential query "pid"/);
  });
});
