import { z } from "zod";
import { encodeContextId, querySpec } from "../dataspace-protocol";
import { createUpstreamHttp, type UpstreamClientOptions } from "./upstream-http";
import {
  credentialDefinitionSchema,
  credentialStatusSchema,
  issuedCredentialSchema,
  type CredentialDefinition,
} from "./upstream-schemas";

/**
 * Client of the issuer service's admin API (`/v1alpha/participants/{issuer}/...`): credential
 * definitions, issued credentials, revocation and status. Participant context ids travel
 * base64url-encoded in the path, as the identity hub and issuer service expect.
 */
export interface IssuerClient {
  readonly baseUrl: string;
  readonly issuerContextId: string;
  listCredentialDefinitions(signal?: AbortSignal): Promise<CredentialDefinition[]>;
  createCredentialDefinition(definition: Record<string, unknown>, signal?: AbortSignal): Promise<void>;
  /** issued credentials, optionally only those of one holder (participant DID or context id) */
  listCredentials(holderId?: string, signal?: AbortSignal): Promise<z.infer<typeof issuedCredentialSchema>[]>;
  revokeCredential(credentialId: string, signal?: AbortSignal): Promise<void>;
  credentialStatus(
    credentialId: string,
    signal?: AbortSignal,
  ): Promise<z.infer<typeof credentialStatusSchema>>;
}

export interface IssuerClientOptions extends UpstreamClientOptions {
  issuerContextId: string;
}

export function createIssuerClient(options: IssuerClientOptions): IssuerClient {
  const http = createUpstreamHttp({ ...options, name: "issuer" });
  const base = `/v1alpha/participants/${encodeContextId(options.issuerContextId)}`;
  return {
    baseUrl: http.baseUrl,
    issuerContextId: options.issuerContextId,
    listCredentialDefinitions: (signal) =>
      http.request("POST", `${base}/credentialdefinitions/query`, {
        schema: z.array(credentialDefinitionSchema),
        body: querySpec({ limit: 200 }),
        signal,
      }),
    createCredentialDefinition: (definition, signal) =>
      http.send("POST", `${base}/credentialdefinitions`, { body: definition, signal }),
    listCredentials: (holderId, signal) =>
      http.request("POST", `${base}/credentials/query`, {
        schema: z.array(issuedCredentialSchema),
        body: querySpec({
          limit: 500,
          ...(holderId
            ? { filterExpression: [{ operandLeft: "holderId", operator: "=", operandRight: holderId }] }
            : {}),
        }),
        signal,
      }),
    revokeCredential: (id, signal) =>
      http.send("POST", `${base}/credentials/${encodeURIComponent(id)}/revoke`, { signal }),
    credentialStatus: (id, signal) =>
      http.request("GET", `${base}/credentials/${encodeURIComponent(id)}/status`, {
        schema: credentialStatusSchema,
        signal,
      }),
  };
}
