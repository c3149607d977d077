import { z } from "zod";
import { encodeContextId, querySpec } from "../dataspace-protocol";
import { createUpstreamHttp, type UpstreamClientOptions } from "./upstream-http";
import {
  credentialDefinitionSchema,
  credentialStatusSchema,
  issuedCredentialSchema,
} from "./upstream-schemas";

/**
 * Client of the issuer service's admin API (`/v1alpha/participants/{issuer}/...`): credential
 * definitions, issued credentials, revocation and status. Participant context ids travel
 * base64url-encoded in the path, as the identity hub and issuer service expect.
 */
type IssuedCredential = z.infer<typeof issuedCredentialSchema>;

/** the issuer's page size: a list is read page by page (offset += limit) until a short page */
export const ISSUER_PAGE = 500;

export interface IssuerClientOptions extends UpstreamClientOptions {
  issuerContextId: string;
}

export type IssuerClient = ReturnType<typeof createIssuerClient>;

export function createIssuerClient(options: IssuerClientOptions) {
  const http = createUpstreamHttp({ ...options, name: "issuer" });
  const base = `/v1alpha/participants/${encodeContextId(options.issuerContextId)}`;
  const query = (spec: Parameters<typeof querySpec>[0], signal?: AbortSignal) =>
    http.request("POST", `${base}/credentials/query`, {
      schema: z.array(issuedCredentialSchema),
      body: querySpec(spec),
      signal,
    });
  return {
    baseUrl: http.baseUrl,
    issuerContextId: options.issuerContextId,
    listCredentialDefinitions: (signal?: AbortSignal) =>
      http.request("POST", `${base}/credentialdefinitions/query`, {
        schema: z.array(credentialDefinitionSchema),
        body: querySpec({ limit: 200 }),
        signal,
      }),
    /** issued credentials, optionally only those of one holder (participant DID or context id): every page */
    async listCredentials(holderId?: string, signal?: AbortSignal) {
      const filterExpression = holderId
        ? [{ operandLeft: "holderId", operator: "=", operandRight: holderId }]
        : undefined;
      const all: IssuedCredential[] = [];
      for (let offset = 0; ; offset += ISSUER_PAGE) {
        const page = await query({ offset, limit: ISSUER_PAGE, filterExpression }, signal);
        // an issuer that ignores the offset answers its first page again: stop, not loop for ever
        if (offset > 0 && page[0]?.id === all[0]?.id)
          throw new Error("the issuer ignores the query's offset");
        all.push(...page);
        if (page.length < ISSUER_PAGE) return all;
      }
    },
    /**
     * the issued credential whose record id is `id`, else the one whose verifiable credential's id is
     * `id` (the issuer's record has its own id), undefined when the issuer has neither
     */
    async getCredential(id: string, signal?: AbortSignal): Promise<IssuedCredential | undefined> {
      for (const operandLeft of ["id", "verifiableCredential.credential.id"]) {
        const by = [{ operandLeft, operator: "=", operandRight: id }];
        const [found] = await query({ limit: 1, filterExpression: by }, signal);
        if (found) return found;
      }
    },
    revokeCredential: (id: string, signal?: AbortSignal) =>
      http.send("POST", `${base}/credentials/${encodeURIComponent(id)}/revoke`, { signal }),
    credentialStatus: (id: string, signal?: AbortSignal) =>
      http.request("GET", `${base}/credentials/${encodeURIComponent(id)}/status`, {
        schema: credentialStatusSchema,
        signal,
      }),
  };
}
