import type { SessionUser } from "../auth/user";
import { qrDataUrl, sha256b64u } from "../eudi";
import { ApiError, badRequest, conflict, forbidden, notFound, unauthorized } from "../http/errors";
import type { Accounts } from "./accounts";
import { topicVersion } from "../storage/relational";
import { createKept } from "../http/kept";
import {
  MAX_ACTIVE_DEVICES,
  MAX_PENDING_PAIRINGS,
  PAIRING_TTL_MS,
  auditIn,
  deviceView,
  iso,
  normaliseCode,
  random,
  randomCode,
  showCode,
  type PatientAppDeps,
} from "./principal";
import type { PatientRecord } from "./record";
import { DEVICES_TOPIC, type AccountRow, type PairingRow, type PatientAppStore } from "./store";

/**
 * Pairing an app account with a patient's record (a short-lived code shown as text and QR code,
 * completed by the app with an attestation over it), the patient's devices and their removal.
 */
export function createPairings(
  deps: PatientAppDeps,
  store: PatientAppStore,
  accounts: Accounts,
  record: Pick<PatientRecord, "patientNode">,
) {
  const { audit, config } = deps;
  const { rel } = store;
  const { patientOf, attest, credentialInfo, createAccountRow } = accounts;
  const { patientNode } = record;
  // a pairing's rows, keyed by the patient and the pairing id (server/http/kept)
  const keptPairings = createKept<{ p: PairingRow; account: AccountRow | undefined }>({ max: 256 });
  const keptDevices = createKept<readonly Readonly<ReturnType<typeof deviceView>>[]>({ max: 256 });
  /** the patient's devices, kept per version of the app's device tables (shared: read only) */
  async function devices(user: SessionUser, opts: { includeRemoved?: boolean } = {}) {
    const patientId = patientOf(user);
    const removed = opts.includeRemoved === true;
    const version = String(await topicVersion(rel, DEVICES_TOPIC));
    return keptDevices({ caller: patientId, versions: [version], args: [removed] }, async () =>
      Object.freeze(
        (await store.accountsOfPatient(patientId))
          .filter((a) => removed || a.status === "active")
          .map((a) => Object.freeze(deviceView(a))),
      ),
    );
  }

  /** the pairing's state is of now: pending until it expires (the rows are kept, the time is not) */
  function pairingView(p: PairingRow, account: AccountRow | undefined, now = Date.now()) {
    const state = p.completed_at !== null ? "completed" : now >= p.expires_at ? "expired" : "pending";
    return {
      pairingId: p.id,
      state,
      createdAt: iso(p.created_at),
      expiresAt: iso(p.expires_at),
      completedAt: iso(p.completed_at),
      device: account ? deviceView(account) : null,
    };
  }

  return {
    async createPairing(user: SessionUser) {
      const patientId = patientOf(user);
      const now = Date.now();
      if ((await store.pendingPairings(patientId, now)) >= MAX_PENDING_PAIRINGS) {
        throw new ApiError(
          429,
          `At most ${MAX_PENDING_PAIRINGS} pairings may be pending at once; wait until one expires`,
        );
      }
      if (
        (await store.accountsOfPatient(patientId)).filter((a) => a.status === "active").length >=
        MAX_ACTIVE_DEVICES
      ) {
        throw conflict(`At most ${MAX_ACTIVE_DEVICES} devices can be paired; remove one first`);
      }
      const code = randomCode();
      const row = {
        id: `pair-${random(12)}`,
        patient_id: patientId,
        code_hash: await sha256b64u(code),
        created_by: user.username,
        created_at: now,
        expires_at: now + PAIRING_TTL_MS,
      };
      await rel.tx(async (tx) => {
        await store.insertPairing(row, tx);
        await auditIn(audit, tx, { action: "app-pairing.create", actor: user.username, target: patientId });
      });
      const pairingLink = `hdh-app://pair?${new URLSearchParams({ server: config.publicUrl, code }).toString()}`;
      return {
        pairingId: row.id,
        code: showCode(code),
        qr: await qrDataUrl(pairingLink),
        pairingLink,
        expiresAt: iso(row.expires_at)!,
        state: "pending" as const,
      };
    },

    /** the page polls it while the app pairs: the rows are kept per version of the app's device tables */
    async pairing(user: SessionUser, pairingId: string) {
      const patientId = patientOf(user);
      const version = String(await topicVersion(rel, DEVICES_TOPIC));
      const { p, account } = await keptPairings(
        { caller: patientId, versions: [version], args: [pairingId] },
        async () => {
          const p = await store.pairing(pairingId);
          // someone else's pairing is as unknown as a made-up id (and, failing, is not kept)
          if (!p || p.patient_id !== patientId) throw notFound("Pairing not found");
          return { p, account: p.account_id ? await store.account(p.account_id) : undefined };
        },
      );
      return pairingView(p, account);
    },

    /** POST /api/patient/app-devices: the app completes a pairing with the code and an attestation over it. */
    async completePairing(body: Record<string, unknown>) {
      if (typeof body.code !== "string" || !body.code.trim())
        throw badRequest("code and attestation are required");
      const code = normaliseCode(body.code);
      const v = await attest(body.attestation, "pairing");
      if (!v.claims.code || normaliseCode(v.claims.code) !== code)
        throw unauthorized("Device attestation refused: it does not sign this pairing code (code)");
      const p = await store.pairingByCode(await sha256b64u(code));
      const now = Date.now();
      if (!p) throw badRequest("The pairing code is not valid");
      if (p.completed_at !== null) throw conflict("This pairing code was already used");
      if (now >= p.expires_at)
        throw badRequest("The pairing code has expired; ask for a new one on the Devices page");
      const account = await store.accountByThumbprint(v.thumbprint);
      if (account?.status === "revoked")
        throw forbidden("This device key was revoked when its device was removed; create a new key");
      if (account?.patient_id) {
        throw conflict(
          account.patient_id === p.patient_id
            ? "This device is already paired with this record"
            : "This device is paired with another record; erase its app account first",
        );
      }
      const patient = await patientNode(p.patient_id);
      // all or nothing: a pairing lost to a concurrent attempt rolls back the account created here
      const paired = await rel.tx(async (tx) => {
        const a = account ?? (await createAccountRow(v, now, tx));
        if (!(await store.completePairing(p.id, a.id, now, tx)))
          throw conflict("This pairing code was already used");
        if (!(await store.pairAccount(a.id, p.patient_id, now, p.id, v.claims.deviceName ?? null, tx)))
          throw conflict("This device cannot be paired");
        await auditIn(audit, tx, {
          action: "app-device.pair",
          actor: `device:${a.id}`,
          target: p.patient_id,
        });
        return (await store.account(a.id, tx))!;
      });
      return {
        ...deviceView(paired),
        accountId: paired.id,
        pairingId: p.id,
        patient: {
          id: patient.id,
          name: typeof patient.properties.name === "string" ? patient.properties.name : undefined,
        },
        credential: credentialInfo(),
      };
    },

    devices,

    async revokeDevice(user: SessionUser, deviceId: string) {
      const patientId = patientOf(user);
      const a = await store.account(deviceId);
      if (!a || a.patient_id !== patientId || a.status !== "active") throw notFound("Device not found");
      const now = Date.now();
      await rel.tx(async (tx) => {
        await store.revokeAccount(a.id, now, user.username, tx);
        await auditIn(audit, tx, { action: "app-device.revoke", actor: user.username, target: a.id });
      });
      return { deviceId: a.id, status: "revoked" as const, revokedAt: iso(now) };
    },
  };
}
