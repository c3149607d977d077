import { gunzipSync } from "node:zlib";
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from "jose";

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

export interface VerificationCheck {
  ok: boolean;
  detail: string;
}

export interface CredentialVerification {
  verified: boolean;
  checks: {
    issuer: VerificationCheck;
    signature: VerificationCheck;
    validity: VerificationCheck;
    revocation: VerificationCheck;
  };
  /** the first failed check, in words; null when verified */
  reason: string | null;
  checkedAt: string;
}

export interface TrustAnchor {
  /** the DID of the dataspace's issuer */
  issuerDid: string;
  /** resolves the issuer's DID document */
  didDocumentUrl: (did: string) => string;
  /** origins documents may be fetched from (the issuer service, the embedded dataspace) */
  allowedOrigins: string[];
  timeoutMs: number;
  /**
   * maps a document address named in a credential to where it is now (the embedded development
   * dataspace listens on a new loopback port each start, while its credentials name the port of
   * the run that issued them)
   */
  relocate?: (url: string) => string;
  fetch?: typeof fetch;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** did:web:host%3Aport:path → https://host:port/path/did.json (W3C did:web method) */
export function didWebUrl(did: string): string | undefined {
  const m = /^did:web:([^:]+)((?::[^:]+)*)$/.exec(did);
  if (!m) return undefined;
  const host = decodeURIComponent(m[1]!);
  const path = m[2] ? m[2].split(":").filter(Boolean).map(decodeURIComponent).join("/") : ".well-known";
  return `https://${host}/${path}/did.json`;
}

export function createVerifier(anchor: TrustAnchor) {
  const doFetch = anchor.fetch ?? fetch;
  const cache = new Map<string, { at: number; value: Promise<Json> }>();

  async function getJson(url: string, ttlMs: number): Promise<Json> {
    const origin = new URL(url).origin;
    if (!anchor.allowedOrigins.includes(origin))
      throw new Error(`refused to fetch ${origin}: not the issuer's`);
    const hit = cache.get(url);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = (async () => {
      const res = await doFetch(url, {
        headers: { Accept: "application/json" },
        signal: AbortSignal.timeout(anchor.timeoutMs),
        redirect: "error",
      });
      if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
      const body: unknown = await res.json();
      if (!isObject(body)) throw new Error(`${url} answered no JSON object`);
      return body;
    })();
    cache.set(url, { at: Date.now(), value });
    value.catch(() => cache.delete(url));
    return value;
  }

  async function keyFor(did: string, kid: string | undefined) {
    const doc = await getJson(anchor.didDocumentUrl(did), 60_000);
    const methods = Array.isArray(doc.verificationMethod) ? (doc.verificationMethod as Json[]) : [];
    const method = methods.find((m) => m.id === kid) ?? (kid ? undefined : methods[0]);
    if (!method || !isObject(method.publicKeyJwk))
      throw new Error(`the issuer's DID document has no key ${kid ?? ""}`.trim());
    const jwk = method.publicKeyJwk as JWK;
    return {
      key: await importJWK(
        jwk,
        typeof jwk.alg === "string" ? jwk.alg : jwk.crv === "Ed25519" ? "EdDSA" : "ES256",
      ),
      doc,
    };
  }

  async function statusBits(url: string, did: string): Promise<Buffer> {
    // status lists change when something is revoked: never cached for long
    const list = await getJson(url, 0);
    const proof = isObject(list.proof) ? list.proof : {};
    if (typeof proof.jwt !== "string") throw new Error("the status list carries no proof");
    const header = decodeProtectedHeader(proof.jwt);
    const { key } = await keyFor(did, header.kid);
    const { payload } = await jwtVerify(proof.jwt, key, { issuer: did });
    const vc = isObject(payload.vc) ? payload.vc : {};
    const subject = isObject(vc.credentialSubject) ? vc.credentialSubject : {};
    const encoded = subject.encodedList;
    if (typeof encoded !== "string" || !encoded.startsWith("u"))
      throw new Error("the status list has no multibase base64url encodedList");
    return gunzipSync(Buffer.from(encoded.slice(1), "base64url"));
  }

  return {
    /**
     * @param lists status lists already fetched for this batch (one fetch per list for a whole
     * listing; never kept across calls, so a revocation shows at once)
     */
    async verify(
      credential: Json,
      now = new Date(),
      lists?: Map<string, Promise<Buffer>>,
    ): Promise<CredentialVerification> {
      const checks: CredentialVerification["checks"] = {
        issuer: { ok: false, detail: "not checked" },
        signature: { ok: false, detail: "not checked" },
        validity: { ok: false, detail: "not checked" },
        revocation: { ok: false, detail: "not checked" },
      };
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
        const { key } = await keyFor(issuer, header.kid);
        const { payload } = await jwtVerify(proof.jwt, key, { issuer, currentDate: now });
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

      const from = Date.parse(String(payloadVc.issuanceDate ?? payloadVc.validFrom ?? ""));
      const until = Date.parse(String(payloadVc.expirationDate ?? payloadVc.validUntil ?? ""));
      if (!Number.isNaN(from) && from > now.getTime())
        checks.validity = { ok: false, detail: `not valid before ${new Date(from).toISOString()}` };
      else if (!Number.isNaN(until) && until <= now.getTime())
        checks.validity = { ok: false, detail: `expired on ${new Date(until).toISOString()}` };
      else
        checks.validity = {
          ok: true,
          detail: Number.isNaN(until) ? "no expiry" : `valid until ${new Date(until).toISOString()}`,
        };

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
        let pending = lists?.get(where);
        if (!pending) {
          pending = statusBits(where, issuer);
          lists?.set(where, pending);
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
  };
}

export type CredentialVerifier = ReturnType<typeof createVerifier>;
