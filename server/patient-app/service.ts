import { base64url, type JWK } from "jose";
import type { AuditLog } from "../audit/log";
import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import { qrDataUrl } from "../eudi/qr";
import { sha256b64u } from "../eudi/sd-jwt";
import type { GraphNode } from "../graph/model";
import type { GraphStore } from "../graph/store";
import { ApiError, badRequest, conflict, forbidden, notFound, unauthorized } from "../http/errors";
import type { Db } from "../storage/database";
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
import { bundle, isSelfMeasured, RELATIONS, toPatient, type FhirResource } from "./fhir";
import { LOINC_CODE, observationMutations, validateObservations } from "./observations";
import { createPatientAppStore, type AccountRow, type PairingRow } from "./store";
import { planSync, readHolderRecords } from "./sync";

/**
 * The companion app: app accounts bound to a device key, pairing with a patient's record, the
 * record as FHIR R4, self-measured observations, EHR sync and erasure (GDPR Art. 17).
 * See credentials.ts for the attestation and the device-signed request credential.
 *
 * Who is the caller (a Principal): a PATIENT cookie session, or a paired, unrevoked app account that
 * signed this request. Either way the patient id comes from the server side (the session or the
 * account's pairing), never from the request, so every path reaches only the caller's own record.
 */

export const CHALLENGE_TTL_MS = 2 * 60 * 1000;
export const PAIRING_TTL_MS = 5 * 60 * 1000;
const MAX_PENDING_PAIRINGS = 5;
const MAX_ACTIVE_DEVICES = 10;
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // 32 symbols, no 0/O or 1/I
const RECORD_LIMIT = 5000;

export type Principal =
  | { kind: "patient"; patientId: string; actor: string; user: SessionUser }
  | { kind: "device"; patientId: string; accountId: string; actor: string; deviceName: string | null }
  | { kind: "unpaired-device"; patientId: null; accountId: string; actor: string };

export interface PatientAppDeps {
  db: Db;
  audit: AuditLog;
  graph: GraphStore;
  config: Config;
}

const random = (bytes: number) => base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));

function randomCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => CODE_ALPHABET[b & 31]).join("");
}
/** "abcd-efgh" / "ABCD EFGH" → "ABCDEFGH" */
export function normaliseCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}
const showCode = (c: string) => `${c.slice(0, 4)}-${c.slice(4)}`;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export function createPatientAppService(deps: PatientAppDeps) {
  const { db, audit, graph, config } = deps;
  const store = createPatientAppStore(db);
  const audience = config.publicUrl;

  function deviceView(a: AccountRow) {
    return {
      deviceId: a.id,
      name: a.device_name ?? "Companion app",
      platform: a.platform,
      status: a.status,
      pairedAt: iso(a.paired_at),
      lastSeenAt: iso(a.last_seen_at),
      revokedAt: iso(a.revoked_at),
      createdAt: iso(a.created_at),
    };
  }

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
    if (!store.consumeChallenge(verified.claims.nonce, now)) {
      const c = store.challenge(verified.claims.nonce);
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
    const account = store.account(parsed.kid);
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
    if (
      !store.rememberJti(account.id, token.jti, now + (REQUEST_MAX_AGE_S + CLOCK_TOLERANCE_S) * 1000 * 2, now)
    ) {
      throw unauthorized("Device credential refused: this request token was already used (replay)");
    }
    if (!account.last_seen_at || now - account.last_seen_at > 60_000) store.touchAccount(account.id, now);
    if (!account.patient_id) {
      if (opts.allowUnpaired)
        return {
          kind: "unpaired-device",
          patientId: null,
          accountId: account.id,
          actor: `device:${account.id}`,
        };
      throw forbidden("This app account is not paired with a patient record yet");
    }
    return {
      kind: "device",
      patientId: account.patient_id,
      accountId: account.id,
      actor: `device:${account.id}`,
      deviceName: account.device_name,
    };
  }

  async function patientNode(patientId: string): Promise<GraphNode> {
    const node = await graph.getNode(patientId);
    if (!node || node.label !== "Patient") throw notFound("Your patient record was not found");
    return node;
  }

  async function observationNodes(patientId: string): Promise<GraphNode[]> {
    return (
      await graph.relationships({
        id: patientId,
        types: ["HAS_OBSERVATION"],
        direction: "out",
        limit: RECORD_LIMIT,
      })
    ).map((r) => r.node);
  }

  function pairingView(p: PairingRow, now = Date.now()) {
    const state = p.completed_at !== null ? "completed" : now >= p.expires_at ? "expired" : "pending";
    const account = p.account_id ? store.account(p.account_id) : undefined;
    return {
      pairingId: p.id,
      state,
      createdAt: iso(p.created_at),
      expiresAt: iso(p.expires_at),
      completedAt: iso(p.completed_at),
      device: account ? deviceView(account) : null,
    };
  }

  function createAccountRow(v: VerifiedAttestation, now: number): AccountRow {
    const row = {
      id: `app-${random(12)}`,
      key_thumbprint: v.thumbprint,
      public_jwk: JSON.stringify(v.jwk),
      device_name: v.claims.deviceName ?? null,
      platform: v.claims.platform ?? null,
      created_at: now,
    };
    store.insertAccount(row);
    return store.account(row.id)!;
  }

  return {
    store,
    authenticate,

    challenge() {
      const now = Date.now();
      const nonce = random(32);
      store.insertChallenge(nonce, now, now + CHALLENGE_TTL_MS);
      return {
        nonce,
        expiresAt: new Date(now + CHALLENGE_TTL_MS).toISOString(),
        audience,
        attestation: { typ: ATTESTATION_TYP, alg: "ES256" },
      };
    },

    async createAccount(body: Record<string, unknown>) {
      const v = await attest(body.attestation, "app-account");
      const existing = store.accountByThumbprint(v.thumbprint);
      if (existing?.status === "revoked")
        throw forbidden("This device key was revoked when its device was removed; create a new key");
      if (existing)
        throw conflict("An app account already exists for this device key", { accountId: existing.id });
      const now = Date.now();
      const account = db.transaction(() => {
        const a = createAccountRow(v, now);
        audit.append({
          action: "app-account.create",
          actor: `device:${a.id}`,
          target: a.id,
          kind: "patient-app",
        });
        return a;
      })();
      return {
        accountId: account.id,
        status: "unpaired",
        keyThumbprint: account.key_thumbprint,
        createdAt: iso(account.created_at),
        credential: credentialInfo(),
      };
    },

    async createPairing(user: SessionUser) {
      const patientId = patientOf(user);
      const now = Date.now();
      if (store.pendingPairings(patientId, now) >= MAX_PENDING_PAIRINGS) {
        throw new ApiError(
          429,
          `At most ${MAX_PENDING_PAIRINGS} pairings may be pending at once; wait until one expires`,
        );
      }
      if (
        store.accountsOfPatient(patientId).filter((a) => a.status === "active").length >= MAX_ACTIVE_DEVICES
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
      db.transaction(() => {
        store.insertPairing(row);
        audit.append({
          action: "app-pairing.create",
          actor: user.username,
          target: patientId,
          kind: "patient-app",
        });
      })();
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

    pairing(user: SessionUser, pairingId: string) {
      const patientId = patientOf(user);
      const p = store.pairing(pairingId);
      // someone else's pairing is as unknown as a made-up id
      if (!p || p.patient_id !== patientId) throw notFound("Pairing not found");
      return pairingView(p);
    },

    /** POST /api/patient/app-devices: the app completes a pairing with the code and an attestation over it. */
    async completePairing(body: Record<string, unknown>) {
      if (typeof body.code !== "string" || !body.code.trim())
        throw badRequest("code and attestation are required");
      const code = normaliseCode(body.code);
      const v = await attest(body.attestation, "pairing");
      if (!v.claims.code || normaliseCode(v.claims.code) !== code)
        throw unauthorized("Device attestation refused: it does not sign this pairing code (code)");
      const p = store.pairingByCode(await sha256b64u(code));
      const now = Date.now();
      if (!p) throw badRequest("The pairing code is not valid");
      if (p.completed_at !== null) throw conflict("This pairing code was already used");
      if (now >= p.expires_at)
        throw badRequest("The pairing code has expired; ask for a new one on the Devices page");
      const account = store.accountByThumbprint(v.thumbprint);
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
      const pairedId = db.transaction(() => {
        const a = account ?? createAccountRow(v, now);
        if (!store.completePairing(p.id, a.id, now)) throw conflict("This pairing code was already used");
        if (!store.pairAccount(a.id, p.patient_id, now, p.id, v.claims.deviceName ?? null))
          throw conflict("This device cannot be paired");
        audit.append({
          action: "app-device.pair",
          actor: `device:${a.id}`,
          target: p.patient_id,
          kind: "patient-app",
        });
        return a.id;
      })();
      const paired = store.account(pairedId)!;
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

    devices(user: SessionUser, opts: { includeRemoved?: boolean } = {}) {
      const patientId = patientOf(user);
      return store
        .accountsOfPatient(patientId)
        .filter((a) => opts.includeRemoved || a.status === "active")
        .map(deviceView);
    },

    revokeDevice(user: SessionUser, deviceId: string) {
      const patientId = patientOf(user);
      const a = store.account(deviceId);
      if (!a || a.patient_id !== patientId || a.status !== "active") throw notFound("Device not found");
      const now = Date.now();
      db.transaction(() => {
        store.revokeAccount(a.id, now, user.username);
        audit.append({
          action: "app-device.revoke",
          actor: user.username,
          target: a.id,
          kind: "patient-app",
        });
      })();
      return { deviceId: a.id, status: "revoked" as const, revokedAt: iso(now) };
    },

    async record(principal: Principal & { patientId: string }) {
      const patient = await patientNode(principal.patientId);
      const holder = typeof patient.properties.holder === "string" ? patient.properties.holder : undefined;
      const ledger = new Map(store.syncItems(patient.id).map((i) => [i.resource_key, i]));
      const resources: FhirResource[] = [toPatient(patient)];
      for (const [type, toResource] of Object.entries(RELATIONS)) {
        const rels = await graph.relationships({
          id: patient.id,
          types: [type],
          direction: "out",
          limit: RECORD_LIMIT,
        });
        for (const r of rels) {
          const key = `${r.node.properties.resourceType}/${r.node.id}`;
          const synced = ledger.get(key);
          resources.push(
            toResource(r.node, patient.id, holder, synced ? iso(synced.last_changed_at)! : undefined),
          );
        }
      }
      const last = store.lastSyncRun(patient.id);
      audit.append({
        action: "patient-app.record.read",
        actor: principal.actor,
        target: patient.id,
        kind: "patient-app",
      });
      return bundle("collection", resources, {
        meta: {
          lastUpdated: new Date().toISOString(),
          ...(last
            ? {
                tag: [
                  { system: "urn:health-dataspace-hub:sync", code: "last-ehr-sync", display: iso(last.at) },
                ],
              }
            : {}),
        },
      });
    },

    async addObservations(principal: Principal & { patientId: string }, body: Record<string, unknown>) {
      const now = new Date();
      const items = validateObservations(body, principal.patientId, now);
      await patientNode(principal.patientId);
      const loincNodes = new Set<string>();
      for (const code of new Set(items.map((i) => i.measure.loinc)))
        if (await graph.getNode(`loinc-${code}`)) loincNodes.add(`loinc-${code}`);
      const { mutations, ids } = observationMutations(items, {
        patientId: principal.patientId,
        accountId: principal.kind === "device" ? principal.accountId : null,
        enteredBy: principal.actor,
        deviceName: principal.kind === "device" ? principal.deviceName : null,
        loincNodes,
        now,
      });
      await graph.mutate(mutations, {
        action: "patient-app.observation.add",
        actor: principal.actor,
        target: principal.patientId,
        kind: "patient-app",
      });
      const created: FhirResource[] = [];
      for (const id of ids) {
        const n = await graph.getNode(id);
        if (n) created.push(RELATIONS.HAS_OBSERVATION(n, principal.patientId));
      }
      return created;
    },

    async observations(principal: Principal & { patientId: string }, url: URL) {
      const codes = (url.searchParams.get("code") ?? "")
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean)
        // FHIR token search: "http://loinc.org|8867-4" or "8867-4"
        .map((c) => (c.startsWith("http://loinc.org|") ? c.slice("http://loinc.org|".length) : c));
      for (const c of codes) if (!LOINC_CODE.test(c)) throw badRequest(`code: "${c}" is not a LOINC code`);
      const from = dateBound(url.searchParams.get("from"), "from", "start");
      const to = dateBound(url.searchParams.get("to"), "to", "end");
      if (from !== null && to !== null && from > to) throw badRequest("from must not be after to");
      const source = url.searchParams.get("source") ?? "all";
      if (!["all", "self", "holder"].includes(source)) throw badRequest("source must be all, self or holder");
      await patientNode(principal.patientId);
      const nodes = (await observationNodes(principal.patientId)).filter((n) => {
        const p = n.properties;
        if (codes.length && !codes.includes(String(p.code))) return false;
        const t = Date.parse(String(p.effectiveDateTime ?? ""));
        if (from !== null && !(t >= from)) return false;
        if (to !== null && !(t <= to)) return false;
        if (source === "self" && !isSelfMeasured(n)) return false;
        if (source === "holder" && isSelfMeasured(n)) return false;
        return true;
      });
      nodes.sort((a, b) =>
        String(b.properties.effectiveDateTime ?? "").localeCompare(
          String(a.properties.effectiveDateTime ?? ""),
        ),
      );
      const resources = nodes.map((n) => RELATIONS.HAS_OBSERVATION(n, principal.patientId));
      return bundle("searchset", resources, {
        link: [{ relation: "self", url: `${config.publicUrl}${url.pathname}${url.search}` }],
      });
    },

    async sync(principal: Principal & { patientId: string }) {
      const patient = await patientNode(principal.patientId);
      const records = await readHolderRecords(graph, patient);
      const ledger = store.syncItems(patient.id);
      const plan = planSync(records, ledger);
      const now = Date.now();
      db.transaction(() => {
        for (const r of plan.upserts)
          store.upsertSyncItem({
            patient_id: patient.id,
            resource_key: r.key,
            holder: r.holder,
            hash: r.hash,
            now,
          });
        for (const r of plan.removals) store.deleteSyncItem(patient.id, r.resource_key);
        store.insertSyncRun({
          id: `sync-${random(9)}`,
          patient_id: patient.id,
          at: now,
          actor: principal.actor,
          ...plan.totals,
        });
        audit.append({
          action: "patient-app.ehr-sync",
          actor: principal.actor,
          target: patient.id,
          outcome: `added ${plan.totals.added}, updated ${plan.totals.updated}, unchanged ${plan.totals.unchanged}, removed ${plan.totals.removed}`,
          kind: "patient-app",
        });
      })();
      return {
        patientId: patient.id,
        syncedAt: iso(now),
        firstSync: ledger.length === 0,
        changed: plan.changes.length > 0,
        holders: plan.report,
        totals: plan.totals,
        changes: plan.changes.slice(0, 200),
      };
    },

    lastSync(patientId: string) {
      const r = store.lastSyncRun(patientId);
      return r ? iso(r.at) : null;
    },

    /** DELETE /api/patient/app/account (GDPR Art. 17): erases app accounts and their data; says what. */
    async erase(principal: Principal) {
      const accounts =
        principal.kind === "patient"
          ? store.accountsOfPatient(principal.patientId)
          : [store.account(principal.accountId)].filter((a): a is AccountRow => !!a);
      const accountIds = new Set(accounts.map((a) => a.id));
      // self-measured observations: all of the patient's (session) or those this app account made (device)
      let observationIds: string[] = [];
      if (principal.patientId) {
        observationIds = (await observationNodes(principal.patientId))
          .filter(
            (n) =>
              isSelfMeasured(n) &&
              (principal.kind === "patient" || accountIds.has(String(n.properties.appAccountId))),
          )
          .map((n) => n.id);
      }
      const erasedAt = new Date().toISOString();
      for (let i = 0; i < observationIds.length; i += 500) {
        const batch = observationIds.slice(i, i + 500);
        await graph.mutate(
          batch.map((id) => ({ op: "deleteNode" as const, id })),
          {
            action: "patient-app.observation.erase",
            actor: principal.actor,
            target: principal.patientId ?? principal.actor,
            outcome: `${batch.length} self-measured observations erased`,
            kind: "patient-app",
          },
        );
      }
      const counts = db.transaction(() => {
        let requestTokenIds = 0;
        let pairings = 0;
        for (const a of accounts) {
          requestTokenIds += store.deleteJtisOfAccount(a.id);
          pairings += store.deletePairingsOfAccount(a.id);
          store.deleteAccount(a.id);
        }
        let syncLedgerEntries = 0;
        if (principal.kind === "patient") {
          pairings += store.deletePairingsOfPatient(principal.patientId);
          syncLedgerEntries =
            store.deleteSyncItemsOfPatient(principal.patientId) +
            store.deleteSyncRunsOfPatient(principal.patientId);
        }
        audit.append({
          action: "patient-app.account.erase",
          actor: principal.actor,
          target: principal.patientId ?? principal.actor,
          outcome: `erased ${accounts.length} app accounts, ${observationIds.length} self-measured observations`,
          kind: "patient-app",
        });
        return { requestTokenIds, pairings, syncLedgerEntries };
      })();
      return {
        erasedAt,
        legalBasis: "GDPR Art. 17 (right to erasure)",
        scope:
          principal.kind === "patient"
            ? "all companion app data of your record"
            : "this app account and the data it added",
        erased: {
          appAccounts: accounts.length,
          devices: accounts.map((a) => ({
            deviceId: a.id,
            name: a.device_name ?? "Companion app",
            status: a.status,
          })),
          deviceCredentials: accounts.length,
          selfMeasuredObservations: observationIds.length,
          pairings: counts.pairings,
          requestTokenIds: counts.requestTokenIds,
          syncLedgerEntries: counts.syncLedgerEntries,
        },
        retained: [
          "Records your data holders keep (encounters, conditions, holder observations, medication requests): they are the holders' records, not app data; ask them to erase or correct them.",
          "Audit log entries that an app account existed and was erased (who, when, what kind), without the measurements: GDPR Art. 17(3)(b) and (e).",
        ],
      };
    },
  };
}
export type PatientAppService = ReturnType<typeof createPatientAppService>;

function dateBound(raw: string | null, name: string, edge: "start" | "end"): number | null {
  if (raw === null || raw === "") return null;
  let t: number;
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw))
    t = Date.parse(`${raw}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}Z`);
  else if (/^\d{4}-\d{2}-\d{2}T/.test(raw)) t = Date.parse(raw);
  else t = NaN;
  if (Number.isNaN(t)) throw badRequest(`${name} must be a date (YYYY-MM-DD) or a date-time`);
  return t;
}
