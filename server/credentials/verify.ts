import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK, type JWTPayload } from "jose";
import { isObject } from "../dataspace-protocol";
import { cappedJson } from "../http/limits";

/**
 * Verification of a W3C verifiable credential (data model 1.1) as the dataspace issues them: a
 * JWT-VC in `proof.jwt` signed with a key of the issuer's DID document, a validity period, and a
 * revocation entry in a Bitstring Status List (W3C "Bitstring Status List v1.0": a gzip of the
 * bits, multibase base64url with the `u` prefix, bit 0 the most significant bit of the first byte).
 *
 * Only the dataspace's own issuer is trusted, and documents are fetched only from where that
 * issuer lives (its DID document and the status list its DID document names, or the issuer
 * service's origin): a credential cannot send the hub to fetch an arbitrary URL.
 */

const verificationCheck = z.object({ ok: z.boolean(), detail: z.string() });
/** a credential's verification, as each listed credential carries it */
export const credentialVerification = z.object({
  verified: z.boolean(),
  checks: z.object({
    issuer: verificationCheck,
    signature: verificationCheck,
    validity: verificationCheck,
    revocation: verificationCheck,
  }),
  reason: z.string().nullable().describe("the first failed check, in words; null when verified"),
  checkedAt: z.string().describe("ISO 8601 time"),
});
export type CredentialVerification = z.infer<typeof credentialVerification>;

/** every check "not checked", in the order a verification lists them */
export const notChecked = (): CredentialVerification["checks"] => ({
  issuer: { ok: false, detail: "not checked" },
  signature: { ok: false, detail: "not checked" },
  validity: { ok: false, detail: "not checked" },
  revocation: { ok: false, detail: "not checked" },
});

export interface TrustAnchor {
  issuerDid: string;
  didDocumentUrl: (did: string) => string;
  /** origins documents may be fetched from (the issuer service, the embedded dataspace) */
  allowedOrigins: string[];
  timeoutMs: number;
  /** where a document a credential names is now (the embedded dataspace's port changes each start) */
  relocate?: (url: string) => string;
  /**
   * a cache of status lists that knows when they change (the dataspace's read cache: the embedded
   * issuer counts every revocation, a configured one keeps nothing unless told to)
   */
  statusLists: DocumentCache;
  /** a cache of DID documents (a read cache of its own that keeps each a minute) */
  didDocuments: DocumentCache;
}

/** documents read through a read cache (server/dataspace/read-cache.ts): one call per address in flight */
export interface DocumentCache {
  read(url: string, load: (signal?: AbortSignal) => Promise<Json>): Promise<Json>;
  /** the document the cache holds now, if any */
  peek(url: string): Json | undefined;
}

/**
 * What a batch of verifications was made from, to tell whether its results still hold at another
 * time: the documents it read (the issuer's DID document, status lists: the very objects, by
 * address) and the times between which no validity period or JWT time claim changes a result.
 */
export interface VerificationInputs {
  didDocuments: Map<string, Json>;
  statusLists: Map<string, Json>;
  /** every result holds for a time in [from, until) (milliseconds) */
  from: number;
  until: number;
  /** false when a document could not be read: such a result is never reused */
  reusable: boolean;
}

export const newVerificationInputs = (): VerificationInputs => ({
  didDocuments: new Map(),
  statusLists: new Map(),
  from: -Infinity,
  until: Infinity,
  reusable: true,
});

function narrow(inputs: VerificationInputs, from: number, until: number) {
  inputs.from = Math.max(inputs.from, from);
  inputs.until = Math.min(inputs.until, until);
}

/** the first millisecond at which jose counts a NumericDate (seconds) as reached (it compares whole seconds) */
const reached = (seconds: unknown, otherwise: number) =>
  typeof seconds === "number" && Number.isFinite(seconds) ? Math.ceil(seconds) * 1000 : otherwise;

/** a JWT's verification with a key: its payload or its error, and the times it holds between */
interface JwtOutcome {
  key: unknown;
  issuer: string;
  payload?: JWTPayload;
  error?: unknown;
  from: number;
  until: number;
}

/**
 * jwtVerify at `now`, with when its outcome holds: jose checks the signature and the other claims
 * first (their outcome does not depend on the time), then nbf, then exp (whole seconds).
 */
async function jwtOutcome(jwt: string, key: CryptoKey | Uint8Array, issuer: string, now: Date) {
  try {
    const { payload } = await jwtVerify(jwt, key, { issuer, currentDate: now });
    return {
      key,
      issuer,
      payload,
      from: reached(payload.nbf, -Infinity),
      until: reached(payload.exp, Infinity),
    };
  } catch (error) {
    const o: JwtOutcome = { key, issuer, error, from: -Infinity, until: Infinity };
    if (error instanceof errors.JWTExpired && error.claim === "exp") {
      o.from = Math.max(reached(error.payload.nbf, -Infinity), reached(error.payload.exp, -Infinity));
    } else if (
      error instanceof errors.JWTClaimValidationFailed &&
      error.claim === "nbf" &&
      error.reason === "check_failed"
    ) {
      o.until = reached(error.payload.nbf, Infinity);
    }
    return o;
  }
}

type Json = Record<string, unknown>;

/** did:web:host%3Aport:path → https://host:port/path/did.json (W3C did:web method) */
export function didWebUrl(did: string): string | undefined {
  const m = /^did:web:([^:]+)((?::[^:]+)*)$/.exec(did);
  if (!m) return undefined;
  const host = decodeURIComponent(m[1]!);
  const path = m[2] ? m[2].split(":").filter(Boolean).map(decodeURIComponent).join("/") : ".well-known";
  return `https://${host}/${path}/did.json`;
}

export function createVerifier(anchor: TrustAnchor) {
  // signatures are what costs (issue 13): each JWT's outcome is kept with the times it holds between,
  // and each DID document's keys are imported once
  const outcomes = new Map<string, JwtOutcome>();
  const keys = new WeakMap<Json, Map<string, Promise<CryptoKey | Uint8Array>>>();
  const bitsOf = new WeakMap<JWTPayload, Buffer>();

  function checkOrigin(url: string) {
    const origin = new URL(url).origin;
    if (!anchor.allowedOrigins.includes(origin))
      throw new Error(`refused to fetch ${origin}: not the issuer's`);
  }

  async function fetchJson(url: string, signal?: AbortSignal): Promise<Json> {
    const res = await fetch(url, {
      headers: { Accept: "application/json" },
      signal: signal ?? AbortSignal.timeout(anchor.timeoutMs),
      redirect: "error",
    });
    if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
    const body: unknown = await cappedJson(res);
    if (!isObject(body)) throw new Error(`${url} answered no JSON object`);
    return body;
  }

  function didDocument(url: string): Promise<Json> {
    checkOrigin(url);
    return anchor.didDocuments.read(url, (s) => fetchJson(url, s));
  }

  /** a status list: it changes when something is revoked, so only a cache that is told so keeps it */
  async function statusList(url: string): Promise<Json> {
    checkOrigin(url);
    return anchor.statusLists.read(url, (s) => fetchJson(url, s));
  }

  /** reads a document for a batch, noting which object it was (or that it could not be read) */
  async function read(
    url: string,
    kind: "didDocuments" | "statusLists",
    inputs: VerificationInputs,
  ): Promise<Json> {
    try {
      const doc = await (kind === "didDocuments" ? didDocument(url) : statusList(url));
      inputs[kind].set(url, doc);
      return doc;
    } catch (e) {
      inputs.reusable = false;
      throw e;
    }
  }

  async function keyFor(did: string, kid: string | undefined, inputs: VerificationInputs) {
    const doc = await read(anchor.didDocumentUrl(did), "didDocuments", inputs);
    let byKid = keys.get(doc);
    if (!byKid) keys.set(doc, (byKid = new Map()));
    let key = byKid.get(kid ?? "");
    if (!key) {
      const methods = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as Json[]) : [];
      const method = methods.find((m) => m.id === kid) ?? (kid ? undefined : methods[0]);
      if (!method || !isObject(method.publicKeyJwk))
        throw new Error(`the issuer's DID document has no key ${kid ?? ""}`.trim());
      const jwk = method.publicKeyJwk as JWK;
      key = importJWK(jwk, typeof jwk.alg === "string" ? jwk.alg : jwk.crv === "Ed25519" ? "EdDSA" : "ES256");
      byKid.set(kid ?? "", key);
      key.catch(() => byKid.delete(kid ?? ""));
    }
    return key;
  }

  /** jwtVerify(jwt, key, { issuer, currentDate: now }), from the kept outcome while it holds */
  async function verifyJwt(
    jwt: string,
    key: CryptoKey | Uint8Array,
    issuer: string,
    now: Date,
    inputs: VerificationInputs,
  ): Promise<JWTPayload> {
    const t = now.getTime();
    let o = outcomes.get(jwt);
    if (!o || o.key !== key || o.issuer !== issuer || t < o.from || t >= o.until) {
      o = await jwtOutcome(jwt, key, issuer, now);
      if (outcomes.size >= 1000) outcomes.clear();
      outcomes.set(jwt, o);
    }
    narrow(inputs, o.from, o.until);
    if (o.error !== undefined) throw o.error;
    return o.payload!;
  }

  async function statusBits(
    url: string,
    did: string,
    now: Date,
    inputs: VerificationInputs,
  ): Promise<Buffer> {
    const list = await read(url, "statusLists", inputs);
    const proof = isObject(list.proof) ? list.proof : {};
    if (typeof proof.jwt !== "string") throw new Error("the status list carries no proof");
    const header = decodeProtectedHeader(proof.jwt);
    const key = await keyFor(did, header.kid, inputs);
    const payload = await verifyJwt(proof.jwt, key, did, now, inputs);
    let bits = bitsOf.get(payload);
    if (!bits) {
      const vc = isObject(payload.vc) ? payload.vc : {};
      const subject = isObject(vc.credentialSubject) ? vc.credentialSubject : {};
      const encoded = subject.encodedList;
      if (typeof encoded !== "string" || !encoded.startsWith("u"))
        throw new Error("the status list has no multibase base64url encodedList");
      bits = gunzipSync(Buffer.from(encoded.slice(1), "base64url"));
      bitsOf.set(payload, bits);
    }
    return bits;
  }

  return {
    /** `lists`: the status lists this batch read already (one read per list for a whole listing) */
    async verify(
      credential: Json,
      now: Date,
      lists: Map<string, Promise<Buffer>>,
      inputs: VerificationInputs = newVerificationInputs(),
    ): Promise<CredentialVerification> {
      const checks = notChecked();
      const done = (): CredentialVerification => {
        const failed = Object.entries(checks).find(([, c]) => !c.ok);
        return {
          verified: !failed,
          checks,
          reason: failed ? `${failed[0]}: ${failed[1].detail}` : null,
          checkedAt: now.toISOString(),
        };
      };
      const issuer =
        typeof credential.issuer === "string"
          ? credential.issuer
          : isObject(credential.issuer)
            ? String(credential.issuer.id)
            : "";
      if (issuer !== anchor.issuerDid) {
        checks.issuer = {
          ok: false,
          detail: `${issuer || "no issuer"} is not the dataspace's issuer (${anchor.issuerDid})`,
        };
        return done();
      }
      checks.issuer = { ok: true, detail: `issued by the dataspace's issuer ${issuer}` };

      const proof = isObject(credential.proof) ? credential.proof : {};
      let payloadVc: Json = {};
      try {
        if (typeof proof.jwt !== "string") throw new Error("the credential carries no JWT proof");
        const header = decodeProtectedHeader(proof.jwt);
        const key = await keyFor(issuer, header.kid, inputs);
        const payload = await verifyJwt(proof.jwt, key, issuer, now, inputs);
        payloadVc = isObject(payload.vc) ? payload.vc : {};
        if (payloadVc.id !== credential.id)
          throw new Error("the signed credential is not this credential (id differs)");
        checks.signature = { ok: true, detail: `JWT signature (${header.alg}) valid with ${header.kid}` };
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        checks.signature = {
          ok: false,
          detail: /exp/.test(msg) && /claim/.test(msg) ? "the signed credential has expired" : msg,
        };
        return done();
      }

      const t = now.getTime();
      const from = Date.parse(String(payloadVc.issuanceDate ?? payloadVc.validFrom ?? ""));
      const until = Date.parse(String(payloadVc.expirationDate ?? payloadVc.validUntil ?? ""));
      const starts = Number.isNaN(from) ? -Infinity : from;
      const ends = Number.isNaN(until) ? Infinity : until;
      if (starts > t) {
        checks.validity = { ok: false, detail: `not valid before ${new Date(from).toISOString()}` };
        narrow(inputs, -Infinity, starts);
      } else if (ends <= t) {
        checks.validity = { ok: false, detail: `expired on ${new Date(until).toISOString()}` };
        narrow(inputs, Math.max(starts, ends), Infinity);
      } else {
        checks.validity = {
          ok: true,
          detail: Number.isNaN(until) ? "no expiry" : `valid until ${new Date(until).toISOString()}`,
        };
        narrow(inputs, starts, ends);
      }

      const status = isObject(payloadVc.credentialStatus) ? payloadVc.credentialStatus : undefined;
      if (!status) {
        checks.revocation = {
          ok: false,
          detail: "the credential names no status list, so its revocation cannot be checked",
        };
        return done();
      }
      try {
        const url = String(status.statusListCredential ?? "");
        const index = Number(status.statusListIndex);
        if (!url || !Number.isInteger(index) || index < 0) throw new Error("malformed credentialStatus");
        const where = anchor.relocate ? anchor.relocate(url) : url;
        let pending = lists.get(where);
        if (!pending) {
          pending = statusBits(where, issuer, now, inputs);
          lists.set(where, pending);
        }
        const bits = await pending;
        if (index >= bits.length * 8) throw new Error(`index ${index} is beyond the status list`);
        const revoked = (bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
        checks.revocation = revoked
          ? { ok: false, detail: `revoked: bit ${index} of the issuer's status list is set` }
          : { ok: true, detail: `not revoked (bit ${index} of the status list is clear)` };
      } catch (e) {
        checks.revocation = {
          ok: false,
          detail: `status list could not be checked: ${e instanceof Error ? e.message : String(e)}`,
        };
      }
      return done();
    },

    /**
     * Whether a batch's results hold at `now`: `now` is within its times and the documents it read are
     * the ones kept now (the DID document as kept here, each status list as its cache holds it).
     */
    holds(inputs: VerificationInputs, now: Date): boolean {
      const t = now.getTime();
      if (!inputs.reusable || t < inputs.from || t >= inputs.until) return false;
      for (const [url, doc] of inputs.didDocuments) if (anchor.didDocuments.peek(url) !== doc) return false;
      for (const [url, doc] of inputs.statusLists) if (anchor.statusLists.peek(url) !== doc) return false;
      return true;
    },
  };
}

export type CredentialVerifier = ReturnType<typeof createVerifier>;
