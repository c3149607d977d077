import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { SignJWT } from "jose";
import type { LocalContext } from "./context";
import type { CredentialDefinitionRecord, CredentialRecord, Json } from "./models";

/**
 * The credential issuer of the local dataspace: W3C verifiable credentials (data model 1.1)
 * signed with the issuer's Ed25519 key as JWT-VCs (the `proof` carries the JWT, verifiable
 * with the public key of the issuer's DID document), revocation through a bitstring status list.
 */

export const CREDENTIAL_TYPES = {
  participant: "EHDSParticipantCredential",
  purpose: "DataProcessingPurposeCredential",
  quality: "DataQualityLabelCredential",
} as const;

const STATUS_LIST_BITS = 131_072;
export const statusListUrl = (ctx: LocalContext) => `${ctx.baseUrl}/issuer/status-list/revocation`;
const verificationMethod = (ctx: LocalContext) => `${ctx.issuer.did}#${ctx.keys.issuer.kid}`;

function nextStatusIndex(ctx: LocalContext): number {
  const n = Number(ctx.store.setting("status-list-next-index") ?? "0");
  ctx.store.setSetting("status-list-next-index", String(n + 1));
  return n;
}

/** Claims of the credential subject for a credential type: the organisation, and those of its type. */
function claimsFor(type: string, holder: { organisation: string; role: string }): Json {
  const ofType: Record<string, Json> = {
    [CREDENTIAL_TYPES.participant]: {
      ehdsParticipantType: holder.role,
      memberOf: "European Health Data Space (development dataspace)",
    },
    [CREDENTIAL_TYPES.purpose]: {
      purpose: "SCIENTIFIC_RESEARCH",
      legalBasis: "Regulation (EU) 2025/327, Art. 53(1)(e)",
    },
    [CREDENTIAL_TYPES.quality]: {
      qualityLabel: "silver",
      framework: "Regulation (EU) 2025/327, Art. 78 (data quality and utility label)",
    },
  };
  return { organisation: holder.organisation, ...ofType[type] };
}

/** who a credential is issued to, and the claims of its subject */
export interface Holder {
  contextId: string;
  did: string;
  organisation: string;
  role: string;
}

export async function issueCredential(
  ctx: LocalContext,
  definition: CredentialDefinitionRecord,
  holder: Holder,
): Promise<CredentialRecord> {
  const now = ctx.now();
  const index = nextStatusIndex(ctx);
  const listUrl = statusListUrl(ctx);
  // the record's id is its own UUID, not the credential's (EDC IdentityHub 0.15.1: the issuance
  // tracker's VerifiableCredentialResource gets a random id, JwtCredentialGenerator another for the VC)
  const id = randomUUID();
  const vc: Json = {
    "@context": ["https://www.w3.org/2018/credentials/v1", "https://www.w3.org/ns/credentials/status/v1"],
    id: `urn:uuid:${randomUUID()}`,
    type: ["VerifiableCredential", definition.credentialType],
    issuer: ctx.issuer.did,
    issuanceDate: new Date(now).toISOString(),
    expirationDate: new Date(now + definition.validity * 1000).toISOString(),
    credentialSubject: { id: holder.did, ...claimsFor(definition.credentialType, holder) },
    credentialStatus: {
      id: `${listUrl}#${index}`,
      type: "BitstringStatusListEntry",
      statusPurpose: "revocation",
      statusListIndex: String(index),
      statusListCredential: listUrl,
    },
  };
  const k = ctx.keys.issuer;
  const jwt = await new SignJWT({ vc })
    .setProtectedHeader({ alg: k.alg, kid: verificationMethod(ctx), typ: "JWT" })
    .setIssuer(ctx.issuer.did)
    .setSubject(holder.did)
    .setJti(String(vc.id))
    .setIssuedAt(Math.floor(now / 1000))
    .setNotBefore(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + definition.validity)
    .sign(k.privateKey);
  const record: CredentialRecord = {
    id,
    participantContextId: ctx.issuer.contextId,
    holderId: holder.did,
    holderContextId: holder.contextId,
    issuerId: ctx.issuer.did,
    state: "ISSUED",
    statusListIndex: index,
    format: "VC1_0_JWT",
    rawVc: jwt,
    credential: {
      ...vc,
      proof: {
        type: "JwtProof2020",
        created: new Date(now).toISOString(),
        proofPurpose: "assertionMethod",
        verificationMethod: verificationMethod(ctx),
        jwt,
      },
    },
    timestamp: now,
  };
  if (!ctx.scheduler.closed) ctx.store.put("credentials", id, holder.contextId, record);
  return record;
}

export function definitionOfType(ctx: LocalContext, type: string): CredentialDefinitionRecord | undefined {
  return ctx.store
    .list<CredentialDefinitionRecord>("credentialdefinitions")
    .find((d) => d.credentialType === type || d.id === type);
}

/** The EHDS participant credential every onboarded participant receives. */
export async function issueOnboardingCredential(ctx: LocalContext, holder: Holder): Promise<void> {
  const def = definitionOfType(ctx, CREDENTIAL_TYPES.participant);
  if (def) await issueCredential(ctx, def, holder);
}

/** The revocation list as a BitstringStatusListCredential (gzip, base64url), signed as a JWT-VC. */
export async function statusListCredential(ctx: LocalContext): Promise<Json> {
  const bits = Buffer.alloc(STATUS_LIST_BITS / 8);
  for (const c of ctx.store.list<CredentialRecord>("credentials")) {
    if (c.state === "REVOKED" && c.statusListIndex < STATUS_LIST_BITS)
      bits[c.statusListIndex >> 3] |= 0x80 >> (c.statusListIndex & 7);
  }
  const url = statusListUrl(ctx);
  const vc: Json = {
    "@context": ["https://www.w3.org/2018/credentials/v1", "https://www.w3.org/ns/credentials/status/v1"],
    id: url,
    type: ["VerifiableCredential", "BitstringStatusListCredential"],
    issuer: ctx.issuer.did,
    issuanceDate: new Date(ctx.now()).toISOString(),
    credentialSubject: {
      id: `${url}#list`,
      type: "BitstringStatusList",
      statusPurpose: "revocation",
      encodedList: `u${gzipSync(bits).toString("base64url")}`,
    },
  };
  const k = ctx.keys.issuer;
  const jwt = await new SignJWT({ vc })
    .setProtectedHeader({ alg: k.alg, kid: verificationMethod(ctx), typ: "JWT" })
    .setIssuer(ctx.issuer.did)
    .setIssuedAt()
    .sign(k.privateKey);
  return {
    ...vc,
    proof: {
      type: "JwtProof2020",
      proofPurpose: "assertionMethod",
      verificationMethod: verificationMethod(ctx),
      jwt,
    },
  };
}

export function issuerDidDocument(ctx: LocalContext): Json {
  const did = ctx.issuer.did;
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
    id: did,
    verificationMethod: [
      {
        id: verificationMethod(ctx),
        type: "JsonWebKey2020",
        controller: did,
        publicKeyJwk: ctx.keys.issuer.publicJwk,
      },
    ],
    assertionMethod: [verificationMethod(ctx)],
    service: [
      { id: `${did}#issuer-service`, type: "IssuerService", serviceEndpoint: `${ctx.baseUrl}/issuer` },
      { id: `${did}#status-list`, type: "BitstringStatusList", serviceEndpoint: statusListUrl(ctx) },
    ],
  };
}
