import { z } from "zod";
import { encodeContextId } from "../dataspace-protocol";
import { createUpstreamHttp, type UpstreamClientOptions } from "./upstream-http";
import { heldCredentialSchema } from "./upstream-schemas";

/**
 * Client of the identity hub's identity API (`/v1alpha/participants/{context}/...`): the
 * credentials a participant holds, and holder-initiated credential requests to an issuer (DCP
 * v1.0 issuance flow).
 */
export interface CredentialRequest {
  issuerDid: string;
  /** the holder's id for this request process */
  holderPid: string;
  credentials: { format: string; type: string; id: string }[];
}

export type IdentityHubClient = ReturnType<typeof createIdentityHubClient>;

export function createIdentityHubClient(options: UpstreamClientOptions) {
  const http = createUpstreamHttp({ ...options, name: "identity hub" });
  const ctx = (id: string) => `/v1alpha/participants/${encodeContextId(id)}`;
  return {
    baseUrl: http.baseUrl,
    listCredentials: (id: string, signal?: AbortSignal) =>
      http.request("GET", `${ctx(id)}/credentials`, { schema: z.array(heldCredentialSchema), signal }),
    requestCredentials: (id: string, request: CredentialRequest, signal?: AbortSignal) =>
      http.send("POST", `${ctx(id)}/credentials/request`, { body: request, signal }),
  };
}
