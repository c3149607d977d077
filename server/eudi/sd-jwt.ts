import {
  base64url,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from "jose";

/**
 * SD-JWT VC (IETF draft-ietf-oauth-sd-jwt-vc, RFC 9901 SD-JWT) with key binding: issuance (for the
 * development PID issuer), presentation (for the development wallet) and verification (for the
 * verifier). Web standards only (crypto.subtle, TextEncoder) plus jose for the JWS parts.
 *
 * A presentation is `<issuer-signed JWT>~<disclosure>~...~<KB-JWT>`; what the verifier checks of it,
 * and why: README.md ("What is checked").
 */

export const SD_JWT_TYPES = ["dc+sd-jwt", "vc+sd-jwt"] as const;
export const SD_ALGS = ["ES256", "ES384", "ES512"] as const;
const encoder = new TextEncoder();

export class PresentationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "PresentationError";
  }
}

function fail(code: string, message: string): never {
  throw new PresentationError(code, message);
}

export async function sha256b64u(text: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

export const random = (bytes: number) => base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));

/** Issues an SD-JWT VC: `<jwt>~<disclosure>~...~` (no key binding yet). */
export async function issueSdJwtVc(o: {
  issuer: string;
  kid: string;
  privateKey: CryptoKey;
  /** the holder's public key: the credential is bound to it (cnf.jwk) */
  holderJwk: JWK;
  vct: string;
  /** selectively disclosable top-level claims */
  disclosable: Record<string, unknown>;
  /** claims always visible */
  visible?: Record<string, unknown>;
  validForSeconds: number;
  now?: Date;
}): Promise<string> {
  const disclosures: string[] = [];
  const digests: string[] = [];
  for (const [name, value] of Object.entries(o.disclosable)) {
    const d = base64url.encode(JSON.stringify([random(16), name, value]));
    disclosures.push(d);
    digests.push(await sha256b64u(d));
  }
  digests.sort();
  const now = Math.floor((o.now ?? new Date()).getTime() / 1000);
  const jwt = await new SignJWT({
    ...(o.visible ?? {}),
    vct: o.vct,
    _sd: digests,
    _sd_alg: "sha-256",
    cnf: { jwk: publicOnly(o.holderJwk) },
  })
    .setProtectedHeader({ alg: "ES256", typ: "dc+sd-jwt", kid: o.kid })
    .setIssuer(o.issuer)
    .setIssuedAt(now)
    .setNotBefore(now - 60)
    .setExpirationTime(now + o.validForSeconds)
    .sign(o.privateKey);
  return `${jwt}~${disclosures.map((d) => `${d}~`).join("")}`;
}

/** Builds a presentation with the chosen disclosures and a KB-JWT over them. */
export async function presentSdJwtVc(o: {
  /** the SD-JWT VC as issued: `<jwt>~<d1>~...~` */
  sdJwt: string;
  /** which claim names to disclose */
  disclose: readonly string[];
  holderKey: CryptoKey;
  audience: string;
  nonce: string;
  now?: Date;
}): Promise<string> {
  const parts = o.sdJwt.split("~");
  const jwt = parts[0];
  const chosen = parts.slice(1).filter((d) => {
    if (!d) return false;
    const decoded = decodeDisclosure(d);
    return decoded.length === 3 && o.disclose.includes(decoded[1] as string);
  });
  const withoutKb = `${jwt}~${chosen.map((d) => `${d}~`).join("")}`;
  const kb = await new SignJWT({ nonce: o.nonce, sd_hash: await sha256b64u(withoutKb) })
    .setProtectedHeader({ alg: "ES256", typ: "kb+jwt" })
    .setAudience(o.audience)
    .setIssuedAt(Math.floor((o.now ?? new Date()).getTime() / 1000))
    .sign(o.holderKey);
  return `${withoutKb}${kb}`;
}

function decodeDisclosure(d: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(base64url.decode(d)));
  } catch {
    return fail("invalid_disclosure", "A disclosure is not base64url-encoded JSON");
  }
  if (!Array.isArray(value)) fail("invalid_disclosure", "A disclosure is not a JSON array");
  return value as unknown[];
}

export function publicOnly(jwk: JWK): JWK {
  const { kty, crv, x, y, n, e } = jwk;
  return Object.fromEntries(
    Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined),
  ) as JWK;
}

/** Verifies a key-bound SD-JWT VC presentation; throws PresentationError with a clear message. */
export async function verifySdJwtVcPresentation(
  presentation: string,
  o: {
    resolveIssuerKey: (iss: string, kid: string | undefined) => Promise<CryptoKey | null>;
    audience: string;
    nonce: string;
    expectedVct: readonly string[];
  },
) {
  const now = new Date();
  const tolerance = 30;
  const parts = presentation.trim().split("~");
  if (parts.length < 2) fail("invalid_format", "The presentation is not an SD-JWT (no ~ separators)");
  const issuerJwt = parts[0];
  const kbJwt = parts[parts.length - 1];
  const disclosures = parts.slice(1, -1);
  if (!kbJwt)
    fail(
      "key_binding_missing",
      "The presentation has no key-binding JWT: the wallet must prove it holds the credential's key",
    );
  if (disclosures.some((d) => d === ""))
    fail("invalid_format", "The presentation contains an empty disclosure");

  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    header = decodeProtectedHeader(issuerJwt);
    unverified = decodeJwt(issuerJwt);
  } catch {
    return fail("invalid_format", "The credential is not a JWT");
  }
  if (!SD_JWT_TYPES.includes(header.typ as (typeof SD_JWT_TYPES)[number])) {
    fail("invalid_type", `The credential's typ is ${String(header.typ)}, expected dc+sd-jwt`);
  }
  if (!SD_ALGS.includes(header.alg as (typeof SD_ALGS)[number]))
    fail("invalid_alg", `The credential's algorithm ${String(header.alg)} is not accepted`);
  if (typeof unverified.iss !== "string") fail("invalid_issuer", "The credential names no issuer");
  const key = await o.resolveIssuerKey(unverified.iss as string, header.kid);
  if (!key)
    fail(
      "untrusted_issuer",
      `The credential's issuer ${unverified.iss as string} is not on the trusted list`,
    );

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(issuerJwt, key as CryptoKey, {
      algorithms: [...SD_ALGS],
      currentDate: now,
      clockTolerance: tolerance,
      requiredClaims: ["iss", "exp"],
    }));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ERR_JWT_EXPIRED") return fail("credential_expired", "The credential has expired");
    if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED")
      return fail("invalid_signature", "The credential's issuer signature is invalid");
    return fail("invalid_credential", `The credential was refused: ${(e as Error).message}`);
  }
  if (typeof payload.vct !== "string" || !o.expectedVct.includes(payload.vct)) {
    fail(
      "wrong_credential",
      `The credential type ${String(payload.vct)} is not a person identification (PID) credential`,
    );
  }
  if (payload._sd_alg !== undefined && payload._sd_alg !== "sha-256")
    fail("invalid_sd_alg", "Only sha-256 disclosure digests are accepted");
  const holderJwk = (payload.cnf as { jwk?: JWK } | undefined)?.jwk;
  if (!holderJwk || typeof holderJwk !== "object")
    fail("no_holder_key", "The credential is not bound to a holder key (cnf.jwk)");

  // disclosures: digest → [salt, name, value]
  const byDigest = new Map<string, unknown[]>();
  for (const d of disclosures) {
    const digest = await sha256b64u(d);
    if (byDigest.has(digest)) fail("duplicate_disclosure", "A disclosure is presented twice");
    const decoded = decodeDisclosure(d);
    if (decoded.length !== 3 && decoded.length !== 2)
      fail("invalid_disclosure", "A disclosure does not have 2 or 3 elements");
    byDigest.set(digest, decoded);
  }
  const used = new Set<string>();
  const claims = resolveDisclosures(payload, byDigest, used) as Record<string, unknown>;
  if (used.size !== byDigest.size)
    fail("unreferenced_disclosure", "A disclosure is not referenced by the credential");
  for (const k of ["_sd", "_sd_alg", "cnf"]) delete claims[k];

  // key binding
  let kbHeader: ReturnType<typeof decodeProtectedHeader>;
  try {
    kbHeader = decodeProtectedHeader(kbJwt);
  } catch {
    return fail("invalid_key_binding", "The key-binding JWT is malformed");
  }
  if (kbHeader.typ !== "kb+jwt") fail("invalid_key_binding", "The key-binding JWT's typ is not kb+jwt");
  let holderKey: CryptoKey;
  try {
    holderKey = (await importJWK(holderJwk as JWK, String(kbHeader.alg))) as CryptoKey;
  } catch {
    return fail("no_holder_key", "The credential's holder key cannot be used");
  }
  let kb: JWTPayload;
  try {
    ({ payload: kb } = await jwtVerify(kbJwt, holderKey, {
      algorithms: [...SD_ALGS],
      typ: "kb+jwt",
      audience: o.audience,
      currentDate: now,
      clockTolerance: tolerance,
      maxTokenAge: 300, // how old the KB-JWT may be (seconds)
      requiredClaims: ["iat", "nonce", "sd_hash", "aud"],
    }));
  } catch (e) {
    const err = e as { code?: string; claim?: string; message: string };
    if (err.code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED")
      return fail("invalid_key_binding", "The wallet's key-binding signature is invalid");
    if (err.code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && err.claim === "aud") {
      return fail("wrong_audience", "The presentation was made for another verifier (audience mismatch)");
    }
    if (
      err.code === "ERR_JWT_EXPIRED" ||
      (err.code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && err.claim === "iat")
    ) {
      return fail("stale_presentation", "The presentation is too old or dated in the future");
    }
    return fail("invalid_key_binding", `The key-binding JWT was refused: ${err.message}`);
  }
  if (kb.nonce !== o.nonce) fail("wrong_nonce", "The presentation answers another request (nonce mismatch)");
  const expectedHash = await sha256b64u(presentation.slice(0, presentation.length - kbJwt.length));
  if (kb.sd_hash !== expectedHash)
    fail("sd_hash_mismatch", "The key-binding JWT does not cover the disclosures presented");

  return {
    issuer: payload.iss as string,
    vct: payload.vct as string,
    claims,
    holderJwk: holderJwk as JWK,
    expiresAt: payload.exp,
  };
}

/** Replaces `_sd` digests (objects) and `{"...": digest}` entries (arrays) by their disclosed values. */
function resolveDisclosures(value: unknown, byDigest: Map<string, unknown[]>, used: Set<string>): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const el of value) {
      if (el && typeof el === "object" && !Array.isArray(el) && "..." in el && Object.keys(el).length === 1) {
        const digest = (el as Record<string, unknown>)["..."];
        const d = typeof digest === "string" ? byDigest.get(digest) : undefined;
        if (!d) continue; // not disclosed
        if (d.length !== 2) fail("invalid_disclosure", "An array element disclosure must have 2 elements");
        claimUse(used, digest as string);
        out.push(resolveDisclosures(d[1], byDigest, used));
      } else {
        out.push(resolveDisclosures(el, byDigest, used));
      }
    }
    return out;
  }
  if (!value || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === "_sd" || k === "_sd_alg") continue;
    out[k] = resolveDisclosures(v, byDigest, used);
  }
  const sd = obj._sd;
  if (sd !== undefined) {
    if (!Array.isArray(sd)) fail("invalid_credential", "_sd is not an array");
    for (const digest of sd as unknown[]) {
      if (typeof digest !== "string") fail("invalid_credential", "_sd holds a non-string digest");
      const d = byDigest.get(digest as string);
      if (!d) continue;
      if (d.length !== 3) fail("invalid_disclosure", "An object property disclosure must have 3 elements");
      const name = d[1];
      if (typeof name !== "string" || name === "_sd" || name === "..." || name in out) {
        fail("invalid_disclosure", `A disclosure names an invalid or repeated claim (${String(name)})`);
      }
      claimUse(used, digest as string);
      out[name as string] = resolveDisclosures(d[2], byDigest, used);
    }
  }
  return out;
}

function claimUse(used: Set<string>, digest: string) {
  if (used.has(digest)) fail("duplicate_disclosure", "A disclosure digest is referenced twice");
  used.add(digest);
}
