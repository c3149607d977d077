import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  EmbeddedJWK,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from "jose";
import { z } from "zod";
import { badRequest, unauthorized } from "../http/errors";
import { sha256b64u } from "../eudi";

/**
 * The companion app's two credentials, both ES256 signatures made with a device key the app never
 * sends: the device attestation and the device-signed request (formats, checks and why: README.md).
 * Nothing bearer-like exists to steal: a captured token is good for one request, to one URL, with one
 * body, for one minute.
 */

export const ATTESTATION_TYP = "app-attestation+jwt";
export const REQUEST_TYP = "device-request+jwt";
export const REQUEST_MAX_AGE_S = 60;
export const CLOCK_TOLERANCE_S = 10;

const b64u = z.string().regex(/^[A-Za-z0-9_-]+$/);
export const deviceJwkSchema = z
  .object({ kty: z.literal("EC"), crv: z.literal("P-256"), x: b64u.length(43), y: b64u.length(43) })
  .passthrough()
  .refine((k) => !("d" in k), "the device key must be a public key (no d)");

const attestationPayload = z.object({
  nonce: z.string().min(16).max(128),
  aud: z.string(),
  iat: z.number(),
  purpose: z.enum(["app-account", "pairing"]),
  code: z.string().max(32).optional(),
  deviceName: z.string().trim().min(1).max(80).optional(),
  platform: z.string().trim().min(1).max(40).optional(),
});
export type VerifiedAttestation = Awaited<ReturnType<typeof verifyAttestation>>;

/** Checks shape, signature (with the embedded key), audience, age and purpose. The nonce is the caller's to consume. */
export async function verifyAttestation(
  attestation: unknown,
  o: { audience: string; purpose: z.infer<typeof attestationPayload>["purpose"]; now?: Date },
) {
  if (typeof attestation !== "string" || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(attestation)) {
    throw badRequest(
      "attestation is required: a compact JWS (ES256) of the challenge nonce, signed by the device key",
    );
  }
  let header;
  try {
    header = decodeProtectedHeader(attestation);
  } catch {
    throw badRequest("attestation is not a JWS");
  }
  if (header.alg !== "ES256")
    throw badRequest("attestation must be signed with ES256 (ECDSA P-256, SHA-256)");
  if (header.typ !== ATTESTATION_TYP) throw badRequest(`attestation typ must be ${ATTESTATION_TYP}`);
  const jwkCheck = deviceJwkSchema.safeParse(header.jwk);
  if (!jwkCheck.success)
    throw badRequest("attestation header must carry the device's public key as a P-256 JWK (jwk)");

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(attestation, EmbeddedJWK, {
      algorithms: ["ES256"],
      typ: ATTESTATION_TYP,
      currentDate: o.now,
      clockTolerance: CLOCK_TOLERANCE_S,
    }));
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED")
      throw unauthorized("Device attestation refused: the signature does not verify with the device key");
    throw unauthorized(`Device attestation refused: ${(e as Error).message}`);
  }
  const claims = attestationPayload.safeParse(payload);
  if (!claims.success) {
    const issue = claims.error.issues[0];
    throw badRequest(`attestation payload: ${issue.path.join(".") || "(payload)"}: ${issue.message}`);
  }
  if (claims.data.aud !== o.audience)
    throw unauthorized("Device attestation refused: it was made for another service (aud)");
  if (claims.data.purpose !== o.purpose)
    throw unauthorized(
      `Device attestation refused: it was made for ${claims.data.purpose}, not ${o.purpose}`,
    );
  const now = Math.floor((o.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - claims.data.iat) > 300)
    throw unauthorized("Device attestation refused: iat is more than 5 minutes off");
  const jwk = { kty: "EC", crv: "P-256", x: jwkCheck.data.x, y: jwkCheck.data.y } as JWK;
  return { jwk, thumbprint: await calculateJwkThumbprint(jwk), claims: claims.data };
}

/** Parses `Authorization: Device <jwt>`; null when the header uses another scheme or is absent. */
export function deviceTokenFrom(request: Request): { token: string; kid: string } | null {
  const auth = request.headers.get("authorization");
  if (!auth) return null;
  const m = /^Device\s+([\w-]+\.[\w-]+\.[\w-]+)\s*$/i.exec(auth);
  if (!m) return null;
  let header;
  try {
    header = decodeProtectedHeader(m[1]);
  } catch {
    throw unauthorized("Device credential is not a JWS");
  }
  if (typeof header.kid !== "string" || !header.kid)
    throw unauthorized("Device credential names no app account (kid)");
  return { token: m[1], kid: header.kid };
}

const refused = (why: string) => unauthorized(`Device credential refused: ${why}`);

/** Verifies a device-signed request against the account's stored public key. The jti is the caller's to remember. */
export async function verifyDeviceRequest(
  token: string,
  o: { publicJwk: JWK; method: string; url: string; body: string; now?: Date },
) {
  let payload: JWTPayload;
  try {
    const key = await importJWK({ ...o.publicJwk, alg: "ES256" }, "ES256");
    ({ payload } = await jwtVerify(token, key, {
      algorithms: ["ES256"],
      typ: REQUEST_TYP,
      currentDate: o.now,
      maxTokenAge: REQUEST_MAX_AGE_S,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ["iat", "jti", "htm", "htu"],
    }));
  } catch (e) {
    const err = e as { code?: string; claim?: string; message: string };
    if (err.code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED")
      throw refused("the signature does not verify with this device's key");
    if (err.code === "ERR_JWT_EXPIRED" || err.claim === "iat")
      throw refused(`a request token is valid for ${REQUEST_MAX_AGE_S} seconds`);
    throw refused(err.message);
  }
  const url = new URL(o.url);
  if (payload.htm !== o.method) throw refused(`it was signed for ${String(payload.htm)}, not ${o.method}`);
  if (payload.htu !== `${url.origin}${url.pathname}`) throw refused("it was signed for another URL (htu)");
  if (typeof payload.jti !== "string" || payload.jti.length < 16 || payload.jti.length > 128)
    throw refused("jti must be a unique string of 16 to 128 characters");
  // an empty body needs no bh, but one given must be the empty body's
  if ((o.body.length > 0 || payload.bh !== undefined) && payload.bh !== (await sha256b64u(o.body)))
    throw refused("the body hash (bh) does not match the body sent");
  return { jti: payload.jti, iat: payload.iat as number };
}
