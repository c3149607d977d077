import type { JWK } from "jose";
import type { SessionUser } from "../auth/user";
import { conflict, forbidden, unauthorized } from "../http/errors";
import {
  ATTESTATION_TYP,
  CLOCK_TOLERANCE_S,
  deviceTokenFrom,
  REQUEST_MAX_AGE_S,
  REQUEST_TYP,
  verifyAttestation,
  verifyDeviceRequest,
  type VerifiedAttestation,
} from "./credentials";
import { CHALLENGE_TTL_MS, auditIn, iso, random, type PatientAppDeps, type Principal } from "./principal";
import type { Sql } from "../storage/relational";
import type { AccountRow, PatientAppStore } from "./store";

/**
 * App accounts bound to a device key: the single-use challenge, the attestation that creates an
 * account, and who a request comes from (a patient session or a device-signed request).
 */
export function createAccounts(deps: PatientAppDeps, store: PatientAppStore) {
  const { audit, config } = deps;
  const { rel } = store;
  const audience = config.publicUrl;

  function patientOf(user: SessionUser): string {
    if (!user.roles.includes("PATIENT")) throw forbidden("Only patients manage companion app devices");
    if (!user.patientId) throw forbidden("Your account is not linked to a patient record");
    return user.patientId;
  }

  /** Attestation checks, then the single-use nonce is consumed (a replay fails here). */
  async function attest(
    attestation: unknown,
    purpose: "app-account" | "pairing",
  ): Promise<VerifiedAttestation> {
    const verified = await verifyAttestation(attestation, { audience, purpose });
    const now = Date.now();
    if (!(await store.consumeChallenge(verified.claims.nonce, now))) {
      const c = await store.challenge(verified.claims.nonce);
      if (!c)
        throw unauthorized(
          "Device attestation refused: unknown nonce (request one from POST /api/app-accounts/challenge)",
        );
      if (c.used_at !== null)
        throw unauthorized("Device attestation refused: this challenge was already used (replay)");
      throw unauthorized("Device attestation refused: the challenge has expired; request a new one");
    }
    return verified;
  }

  function credentialInfo() {
    return {
      scheme: "Device",
      typ: REQUEST_TYP,
      alg: "ES256",
      kid: "the app account id",
      claims: {
        htm: "HTTP method",
        htu: "request URL without query",
        iat: "seconds",
        jti: "unique id",
        bh: "base64url SHA-256 of the body (when there is one)",
      },
      maxAgeSeconds: REQUEST_MAX_AGE_S,
      clockToleranceSeconds: CLOCK_TOLERANCE_S,
    };
  }

  async function authenticate(
    ctx: { request: Request; user: SessionUser | null },
    body: string,
    opts: { allowUnpaired?: boolean } = {},
  ): Promise<Principal> {
    if (ctx.user)
      return { kind: "patient", patientId: patientOf(ctx.user), actor: ctx.user.username, user: ctx.user };
    const parsed = deviceTokenFrom(ctx.request);
    if (!parsed)
      throw unauthorized(
        "Sign in as a patient, or send a device-signed request (Authorization: Device <jwt>)",
      );
    const account = await store.account(parsed.kid);
    if (!account) throw unauthorized("Device credential refused: unknown app account");
    if (account.status === "revoked")
      throw unauthorized("Device credential refused: this device was removed, its credential is revoked");
    const now = Date.now();
    const token = await verifyDeviceRequest(parsed.token, {
      publicJwk: JSON.parse(account.public_jwk) as JWK,
      method: ctx.request.method,
      url: ctx.request.url,
      body,
    });
    // kept past the token's own life (its age and the clock tolerance), twice over
    const jtiExpiresAt = now + (REQUEST_MAX_AGE_S + CLOCK_TOLERANCE_S) * 1000 * 2;
    if (!(await store.rememberJti(account.id, token.jti, jtiExpiresAt, now)))
      throw unauthorized("Device credential refused: this request token was already used (replay)");
    if (!account.last_seen_at || now - account.last_seen_at > 60_000)
      await store.touchAccount(account.id, now);
    const device = { accountId: account.id, actor: `device:${account.id}` };
    if (!account.patient_id) {
      if (opts.allowUnpaired) return { kind: "unpaired-device", patientId: null, ...device };
      throw forbidden("This app account is not paired with a patient record yet");
    }
    return { kind: "device", patientId: account.patient_id, ...device, deviceName: account.device_name };
  }

  /** inserts the account in `tx` (the transaction of the write that records it) */
  async function createAccountRow(v: VerifiedAttestation, now: number, tx: Sql): Promise<AccountRow> {
    const row = {
      id: `app-${random(12)}`,
      key_thumbprint: v.thumbprint,
      public_jwk: JSON.stringify(v.jwk),
      device_name: v.claims.deviceName ?? null,
      platform: v.claims.platform ?? null,
      created_at: now,
    };
    await store.insertAccount(row, tx);
    return (await store.account(row.id, tx))!;
  }

  return {
    patientOf,
    attest,
    credentialInfo,
    authenticate,
    createAccountRow,

    async challenge() {
      const now = Date.now();
      const nonce = random(32);
      await store.insertChallenge(nonce, now, now + CHALLENGE_TTL_MS);
      return {
        nonce,
        expiresAt: new Date(now + CHALLENGE_TTL_MS).toISOString(),
        audience,
        attestation: { typ: ATTESTATION_TYP, alg: "ES256" },
      };
    },

    async createAccount(body: Record<string, unknown>) {
      const v = await attest(body.attestation, "app-account");
      const existing = await store.accountByThumbprint(v.thumbprint);
      if (existing?.status === "revoked")
        throw forbidden("This device key was revoked when its device was removed; create a new key");
      if (existing)
        throw conflict("An app account already exists for this device key", { accountId: existing.id });
      const now = Date.now();
      const account = await rel.tx(async (tx) => {
        const a = await createAccountRow(v, now, tx);
        await auditIn(audit, tx, { action: "app-account.create", actor: `device:${a.id}`, target: a.id });
        return a;
      });
      return {
        accountId: account.id,
        status: "unpaired",
        keyThumbprint: account.key_thumbprint,
        createdAt: iso(account.created_at),
        credential: credentialInfo(),
      };
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
