import { z } from "zod";
import { jsonLdList } from "./upstream-http";
import { VC_STATUS } from "../dataspace-protocol";

/**
 * zod schemas of every upstream response this module reads. Records are loose objects: the fields
 * we depend on are checked, every other field is passed through unchanged (the spec passes
 * connector fields through to clients).
 */

const jsonObject = z.record(z.string(), z.unknown());
const stateValue = z.union([z.string(), z.number()]).transform((s) => String(s));

// ---- connector management API ------------------------------------------------------------

export const participantContextSchema = z.looseObject({
  "@id": z.string().min(1),
  "@type": z.string().optional(),
  identity: z.string().optional(),
  participantId: z.string().optional(),
  state: stateValue.optional(),
  properties: jsonObject.optional(),
});
export type ParticipantContext = z.infer<typeof participantContextSchema>;
export const participantContextList = jsonLdList(participantContextSchema);

export const assetSchema = z.looseObject({
  "@id": z.string().min(1),
  "@type": z.string().optional(),
  properties: jsonObject.optional(),
});
export type ConnectorAsset = z.infer<typeof assetSchema>;
export const assetList = jsonLdList(assetSchema);

/** the fields a negotiation and a transfer process start with, and end with */
const processHead = { "@id": z.string().min(1), "@type": z.string().optional(), state: stateValue };
const processTail = {
  type: z.string().optional(),
  errorDetail: z.string().optional(),
  createdAt: z.number().optional(),
  stateTimestamp: z.number().optional(),
};

export const negotiationSchema = z.looseObject({
  ...processHead,
  counterPartyAddress: z.string().optional(),
  counterPartyId: z.string().optional(),
  contractAgreementId: z.string().optional(),
  ...processTail,
});
export type ConnectorNegotiation = z.infer<typeof negotiationSchema>;
export const negotiationList = jsonLdList(negotiationSchema);

export const transferSchema = z.looseObject({
  ...processHead,
  contractId: z.string().optional(),
  assetId: z.string().optional(),
  transferType: z.string().optional(),
  counterPartyAddress: z.string().optional(),
  ...processTail,
});
export type ConnectorTransfer = z.infer<typeof transferSchema>;
export const transferList = jsonLdList(transferSchema);

export const idResponseSchema = z.looseObject({
  "@id": z.string().min(1),
  "@type": z.string().optional(),
  createdAt: z.number().optional(),
});
export type IdResponse = z.infer<typeof idResponseSchema>;

/** A DCAT catalogue: any JSON-LD object (checked further by whoever reads offers out of it). */
export const catalogSchema = z.looseObject({
  "@type": z.union([z.string(), z.array(z.string())]).optional(),
});
export type Catalog = z.infer<typeof catalogSchema>;

export const policyDefinitionSchema = z.looseObject({
  "@id": z.string().min(1),
  policy: jsonObject.optional(),
});
export const policyDefinitionList = jsonLdList(policyDefinitionSchema);

/**
 * A contract definition: which assets (`assetsSelector`, criteria; EDC compacts a list of one to the
 * criterion itself) are offered under which access and contract policy.
 */
export const contractDefinitionSchema = z.looseObject({
  "@id": z.string().min(1),
  accessPolicyId: z.string().optional(),
  contractPolicyId: z.string().optional(),
  assetsSelector: z.union([z.array(jsonObject), jsonObject]).optional(),
});
export type ContractDefinition = z.infer<typeof contractDefinitionSchema>;
export const contractDefinitionList = jsonLdList(contractDefinitionSchema);

/** An endpoint data reference (EDR): the data address of a started pull transfer. */
export const edrDataAddressSchema = z.looseObject({}).transform((o, ctx) => {
  const pick = (k: string) => {
    const v = o[k] ?? o[`edc:${k}`] ?? o[`https://w3id.org/edc/v0.0.1/ns/${k}`];
    return typeof v === "string" ? v : undefined;
  };
  const endpoint = pick("endpoint");
  const authorization = pick("authorization");
  if (!endpoint || !authorization) {
    ctx.addIssue({ code: "custom", message: "endpoint data reference without endpoint or authorization" });
    return z.NEVER;
  }
  return {
    ...o,
    endpoint,
    authorization,
    authType: pick("authType") ?? "bearer",
    endpointType: pick("endpointType"),
  };
});

// ---- tenant manager (connector fabric manager, /api/v1alpha1) ------------------------------

export const cellSchema = z.looseObject({
  id: z.string().min(1),
  state: z.string().optional(),
  properties: jsonObject.optional(),
});
export const dataspaceProfileSchema = z.looseObject({
  id: z.string().min(1),
  properties: jsonObject.optional(),
});
export const tenantSchema = z.looseObject({
  id: z.string().min(1),
  version: z.number().optional(),
  properties: jsonObject.optional(),
});
export type Tenant = z.infer<typeof tenantSchema>;
export const participantProfileSchema = z.looseObject({
  id: z.string().min(1),
  identifier: z.string(),
  properties: jsonObject.optional(),
  error: z.boolean().optional(),
  errorDetail: z.string().optional(),
  vpas: z.array(jsonObject).optional(),
});
export type ParticipantProfile = z.infer<typeof participantProfileSchema>;

// ---- issuer service admin API and identity hub ---------------------------------------------

export const credentialDefinitionSchema = z.looseObject({
  id: z.string().min(1),
  credentialType: z.string().min(1),
});
export type CredentialDefinition = z.infer<typeof credentialDefinitionSchema>;

/** A W3C verifiable credential (data model 1.1) as JSON. */
export const verifiableCredentialSchema = z.looseObject({
  id: z.string().optional(),
  type: z.union([z.string(), z.array(z.string())]),
  issuer: z.union([z.string(), z.looseObject({ id: z.string() })]),
  credentialSubject: z.union([jsonObject, z.array(jsonObject)]),
  issuanceDate: z.string().optional(),
  validFrom: z.string().optional(),
  proof: jsonObject.optional(),
});
export type VerifiableCredentialJson = z.infer<typeof verifiableCredentialSchema>;

/** Issuer admin API: VerifiableCredentialResourceDto. */
export const issuedCredentialSchema = z.looseObject({
  id: z.string().min(1),
  participantContextId: z.string().optional(),
  format: z.string().optional(),
  credential: verifiableCredentialSchema,
});

/** CredentialStatusResponse: `status` is the status list's purpose ("revocation") when set, else null */
export const credentialStatusSchema = z.looseObject({
  credentialId: z.string(),
  status: z.string().nullable(),
});

/** Identity hub: VerifiableCredentialResource of a holder, its state by VcStatus name. */
export const heldCredentialSchema = z.looseObject({
  id: z.string().min(1),
  state: z
    .union([z.string(), z.number()])
    .transform((s) => (typeof s === "number" ? (VC_STATUS[s] ?? String(s)) : s))
    .optional(),
  issuerId: z.string().optional(),
  holderId: z.string().optional(),
  verifiableCredential: z.looseObject({
    format: z.string().optional(),
    rawVc: z.string().optional(),
    credential: verifiableCredentialSchema,
  }),
});
