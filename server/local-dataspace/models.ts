import type { Criterion } from "../dataspace-protocol";

/**
 * The records the local dataspace keeps, in the JSON shapes its APIs answer with (EDC
 * management API, tenant manager, issuer service, identity hub).
 */

export type Json = Record<string, unknown>;

export interface ParticipantRecord extends Json {
  "@id": string;
  "@type": "ParticipantContext";
  identity: string;
  state: "CREATED" | "ACTIVATED" | "DEACTIVATED";
  properties: Json;
  createdAt: number;
  stateTimestamp: number;
}

export interface AssetRecord extends Json {
  "@id": string;
  "@type": "Asset";
  properties: Json;
  privateProperties?: Json;
  dataAddress: Json;
  createdAt: number;
  participantContextId: string;
}

export interface PolicyDefinitionRecord extends Json {
  "@id": string;
  "@type": "PolicyDefinition";
  policy: Json & { permission?: Json[]; prohibition?: Json[]; obligation?: Json[] };
  createdAt: number;
  participantContextId: string;
}

export interface ContractDefinitionRecord extends Json {
  "@id": string;
  "@type": "ContractDefinition";
  accessPolicyId: string;
  contractPolicyId: string;
  assetsSelector: Criterion[];
  createdAt: number;
  participantContextId: string;
}

export type NegotiationState = "REQUESTED" | "AGREED" | "VERIFIED" | "FINALIZED" | "TERMINATED";

/** what a negotiation and a transfer process of one side hold alike */
interface ProcessRecord<Type extends string, State extends string> extends Json {
  "@id": string;
  "@type": Type;
  type: "CONSUMER" | "PROVIDER";
  protocol: string;
  state: State;
  counterPartyAddress: string;
  /** the negotiation (transfer process) of the other side */
  correlationId: string;
  assetId: string;
  errorDetail?: string;
  createdAt: number;
  stateTimestamp: number;
  participantContextId: string;
}

export interface NegotiationRecord extends ProcessRecord<"ContractNegotiation", NegotiationState> {
  counterPartyId: string;
  offerId: string;
  /** the requested (consumer) or offered (provider) policy */
  policy: Json;
  contractAgreementId?: string;
  callbackAddresses: Json[];
}

export interface AgreementRecord extends Json {
  "@id": string;
  "@type": "ContractAgreement";
  assetId: string;
  consumerId: string;
  providerId: string;
  contractSigningDate: number;
  policy: Json;
  /** consumer and provider context ids */
  consumerContextId: string;
  providerContextId: string;
}

export type TransferState = "REQUESTED" | "STARTED" | "COMPLETED" | "TERMINATED";

export interface TransferRecord extends ProcessRecord<"TransferProcess", TransferState> {
  contractId: string;
  transferType: string;
  counterPartyId?: string;
  dataDestination: Json;
}

export interface EdrRecord extends Json {
  transferProcessId: string;
  agreementId: string;
  assetId: string;
  providerId: string;
  participantContextId: string;
  createdAt: number;
}

export interface CellRecord extends Json {
  id: string;
  version: number;
  state: string;
  stateTimestamp: string;
  properties: Json;
}

export interface DataspaceProfileRecord extends Json {
  id: string;
  version: number;
  artifacts: string[];
  deployments: Json[];
  properties: Json;
}

export interface TenantRecord extends Json {
  id: string;
  version: number;
  properties: Json;
}

export interface ParticipantProfileRecord extends Json {
  id: string;
  version: number;
  identifier: string;
  tenantId: string;
  vpas: Json[];
  properties: Json;
  error: boolean;
  errorDetail?: string;
}

export interface CredentialDefinitionRecord extends Json {
  id: string;
  credentialType: string;
  jsonSchema: string;
  jsonSchemaUrl: string;
  validity: number;
  format: string;
  mappings: Json[];
  rules: Json[];
  participantContextId: string;
}

export interface CredentialRecord extends Json {
  id: string;
  participantContextId: string;
  holderId: string;
  /** the holder's participant context (for the identity hub) */
  holderContextId: string;
  issuerId: string;
  state: "ISSUED" | "REVOKED";
  statusListIndex: number;
  format: string;
  rawVc: string;
  credential: Json;
  timestamp: number;
}

export interface CredentialRequestRecord extends Json {
  holderPid: string;
  issuerPid: string;
  issuerDid: string;
  holderContextId: string;
  status: "CREATED" | "REQUESTED" | "ISSUED" | "REJECTED" | "ERROR";
  credentials: Json[];
  errorDetail?: string;
  timestamp: number;
}
