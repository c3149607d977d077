import { base64url, exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { issueSdJwtVc, presentSdJwtVc, sha256b64u, verifySdJwtVcPresentation } from "./sd-jwt";

/**
 * The verifier's checks one by one, without a server: a genuine presentation passes; each forged one
 * is refused with its reason. Several forgeries carry a valid key binding over exactly what they
 * present, so only the check named in the test can refuse them (the @sd-jwt library alone ignores
 * unreferenced and repeated disclosures, lets a disclosed claim overwrite a signed one, and checks
 * neither the credential's typ, exp and vct nor the KB-JWT's aud and age: decision 0105).
 */

const ISS = "https://pid-issuer.test";
const AUD = "redirect_uri:https://hub.test/auth/wallet/response";
const NONCE = "n-123";
const VCT = "urn:eudi:pid:1";
let issuer: CryptoKeyPair;
let holder: { privateKey: CryptoKey; publicJwk: JWK };

beforeAll(async () => {
  issuer = await generateKeyPair("ES256");
  const h = await generateKeyPair("ES256", { extractable: true });
  holder = { privateKey: h.privateKey, publicJwk: await exportJWK(h.publicKey) };
});

const now = () => Math.floor(Date.now() / 1000);
const encode = (d: unknown[]) => base64url.encode(JSON.stringify(d));
const verify = (p: string) =>
  verifySdJwtVcPresentation(p, {
    resolveIssuerKey: async (iss) => (iss === ISS ? issuer.publicKey : null),
    audience: AUD,
    nonce: NONCE,
    expectedVct: [VCT],
  });

/** `<jwt>~<d>~...~<KB-JWT>`, the KB-JWT signed by the holder over exactly this body */
async function keyBound(body: string, kb: { typ?: string; sdHash?: boolean } = {}) {
  const jwt = await new SignJWT({
    nonce: NONCE,
    sd_hash: kb.sdHash === false ? undefined : await sha256b64u(body),
  })
    .setProtectedHeader({ alg: "ES256", typ: kb.typ ?? "kb+jwt" })
    .setAudience(AUD)
    .setIssuedAt(now())
    .sign(holder.privateKey);
  return `${body}${jwt}`;
}

/** a credential signed by the trusted issuer with these claims and disclosures, presented key-bound */
async function forged(
  claims: (digests: string[]) => Record<string, unknown>,
  disclosures: unknown[][],
  o: { header?: Record<string, unknown>; presented?: string[] } = {},
) {
  const encoded = disclosures.map(encode);
  const digests = await Promise.all(encoded.map(sha256b64u));
  const jwt = await new SignJWT({
    iss: ISS,
    iat: now(),
    exp: now() + 3600,
    vct: VCT,
    cnf: { jwk: holder.publicJwk },
    ...claims(digests),
  })
    .setProtectedHeader({ alg: "ES256", typ: "dc+sd-jwt", ...o.header })
    .sign(issuer.privateKey);
  return keyBound(`${jwt}~${(o.presented ?? encoded).map((d) => `${d}~`).join("")}`);
}

async function genuine(o: { aud?: string; nonce?: string; kbIat?: Date } = {}) {
  const sdJwt = await issueSdJwtVc({
    issuer: ISS,
    kid: "k1",
    privateKey: issuer.privateKey,
    holderJwk: holder.publicJwk,
    vct: VCT,
    disclosable: {
      given_name: "Erika",
      family_name: "Mustermann",
      birthdate: "1964-08-12",
      nationalities: ["DE"],
    },
    visible: { issuing_country: "DE" },
    validForSeconds: 3600,
  });
  return presentSdJwtVc({
    sdJwt,
    disclose: ["given_name", "family_name", "birthdate"],
    holderKey: holder.privateKey,
    audience: o.aud ?? AUD,
    nonce: o.nonce ?? NONCE,
    now: o.kbIat,
  });
}

describe("SD-JWT VC verification", () => {
  it("accepts a genuine presentation and answers only the disclosed and visible claims", async () => {
    const v = await verify(await genuine());
    expect(v.issuer).toBe(ISS);
    expect(v.claims).toMatchObject({ given_name: "Erika", family_name: "Mustermann", issuing_country: "DE" });
    expect(v.claims).not.toHaveProperty("nationalities");
    for (const k of ["_sd", "_sd_alg", "cnf"]) expect(v.claims).not.toHaveProperty(k);
  });

  it("issues 128-bit salts and an issuer-signed JWT of typ dc+sd-jwt", async () => {
    const [jwt, first] = (await genuine()).split("~");
    expect(JSON.parse(Buffer.from(jwt.split(".")[0], "base64url").toString())).toMatchObject({
      typ: "dc+sd-jwt",
      alg: "ES256",
      kid: "k1",
    });
    const [salt] = JSON.parse(Buffer.from(first, "base64url").toString()) as string[];
    expect(Buffer.from(salt, "base64url").length).toBeGreaterThanOrEqual(16);
  });

  const withoutKb = (p: string) => p.slice(0, p.lastIndexOf("~") + 1);
  const refusals: [string, () => Promise<string>, RegExp][] = [
    ["a KB-JWT for another request", () => genuine({ nonce: "another" }), /nonce mismatch/],
    [
      "a disclosure left out after the key binding",
      async () => {
        const p = await genuine();
        const parts = p.split("~");
        return [parts[0], ...parts.slice(2)].join("~");
      },
      /does not cover the disclosures/,
    ],
    [
      "a KB-JWT of another typ",
      async () => keyBound(withoutKb(await genuine()), { typ: "JWT" }),
      /typ is not kb\+jwt/,
    ],
    [
      "a KB-JWT without sd_hash",
      async () => keyBound(withoutKb(await genuine()), { sdHash: false }),
      /sd_hash/,
    ],
    ["a KB-JWT that is not a JWT", async () => `${withoutKb(await genuine())}abc.def`, /malformed|refused/],
    [
      "whitespace around the presentation",
      async () => ` ${await genuine()}\n`,
      /signature is invalid|does not cover/,
    ],
    ["an expired credential", () => forged(() => ({ exp: now() - 3600 }), []), /has expired/],
    [
      "a KB-JWT for another verifier",
      () => genuine({ aud: "redirect_uri:https://evil.test/cb" }),
      /audience mismatch/,
    ],
    ["a KB-JWT a day old", () => genuine({ kbIat: new Date(Date.now() - 86400_000) }), /too old/],
    [
      "a disclosure nothing references, under a valid key binding",
      async () => {
        const body = withoutKb(await genuine());
        return keyBound(`${body}${encode(["salt", "given_name", "Mallory"])}~`);
      },
      /not referenced/,
    ],
    [
      "a disclosure presented twice, under a valid key binding",
      async () => {
        const parts = (await genuine()).split("~");
        return keyBound(`${[parts[0], parts[1], ...parts.slice(1, -1)].join("~")}~`);
      },
      /presented twice/,
    ],
    ["a credential without exp", () => forged(() => ({ exp: undefined }), []), /exp/],
    [
      "a credential of typ kb+jwt",
      () => forged(() => ({}), [], { header: { typ: "kb+jwt" } }),
      /typ is kb\+jwt/,
    ],
    [
      "another credential type",
      () => forged(() => ({ vct: "urn:other" }), []),
      /not a person identification/,
    ],
    ["another digest algorithm", () => forged(() => ({ _sd_alg: "sha-512" }), []), /Only sha-256/],
    [
      "a credential bound to no key",
      () => forged(() => ({ cnf: undefined }), []),
      /not bound to a holder key/,
    ],
    [
      "a disclosed iss beside the signed one",
      () => forged((d) => ({ _sd: d }), [["salt", "iss", "https://evil.test"]]),
      /invalid or repeated claim \(iss\)/,
    ],
    [
      "two disclosures of the same name",
      () =>
        forged(
          (d) => ({ _sd: d }),
          [
            ["s1", "given_name", "Erika"],
            ["s2", "given_name", "Mallory"],
          ],
        ),
      /invalid or repeated claim \(given_name\)/,
    ],
    [
      "a digest referenced in two places",
      () => forged((d) => ({ _sd: d, address: { _sd: d } }), [["salt", "given_name", "Erika"]]),
      /referenced twice/,
    ],
    [
      "an object disclosure in an array",
      () => forged((d) => ({ nationalities: [{ "...": d[0] }] }), [["salt", "n", "DE"]]),
      /must have 2 elements/,
    ],
  ];

  it.each(refusals)("refuses %s", async (_name, build, reason) => {
    await expect(verify(await build())).rejects.toThrow(reason);
  });

  it("fetches nothing for a credential's status list (not supported: README 'Not done')", async () => {
    const p = await forged(
      () => ({ status: { status_list: { uri: "http://127.0.0.1:9/list", idx: 0 } } }),
      [],
    );
    await expect(verify(p)).resolves.toMatchObject({ issuer: ISS });
  });
});
