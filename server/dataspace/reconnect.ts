import { createConnectorClient } from "./connector-client";
import { createIdentityHubClient } from "./identity-hub-client";
import { createIssuerClient } from "./issuer-client";
import { createClientCredentialsSource } from "./oauth-token";
import type { DataspaceRuntime } from "./runtime";
import { createTenantManagerClient } from "./tenant-manager-client";
import type { TokenSource } from "./upstream-http";

/**
 * Fresh clients for a running dataspace: what a restart of a dataspace component does on the
 * hub's side (the operator console after restarting a service, or after the container restarted
 * the embedded dataspace on the same address). The dataspace owns its clients, so it builds them.
 */

export type DataspaceServiceName = "connector" | "tenant-manager" | "issuer" | "identity-hub";

export interface ServiceEndpoints {
  managementUrl: string;
  apiVersion: string;
  tenantManagerUrl?: string;
  issuerUrl?: string;
  identityHubUrl?: string;
  /** client credentials of the connector's token endpoint; no token source without tokenUrl and clientId */
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
}

/** rebuilds the named clients of `rt` against `endpoints` (an unconfigured issuer stays unconfigured) */
export function reconnectClients(
  rt: DataspaceRuntime,
  which: readonly DataspaceServiceName[],
  endpoints: ServiceEndpoints,
): void {
  const tokens: TokenSource | undefined =
    endpoints.tokenUrl && endpoints.clientId
      ? createClientCredentialsSource({
          tokenUrl: endpoints.tokenUrl,
          clientId: endpoints.clientId,
          clientSecret: endpoints.clientSecret ?? "",
          timeoutMs: rt.timeoutMs,
        })
      : undefined;
  const common = { timeoutMs: rt.timeoutMs, tokens };
  if (which.includes("connector"))
    rt.connector = createConnectorClient({
      ...common,
      managementUrl: endpoints.managementUrl,
      apiVersion: endpoints.apiVersion,
    });
  if (which.includes("tenant-manager") && endpoints.tenantManagerUrl)
    rt.tenantManager = createTenantManagerClient({ ...common, baseUrl: endpoints.tenantManagerUrl });
  if (which.includes("issuer") && endpoints.issuerUrl && rt.issuer) {
    rt.issuer = createIssuerClient({
      ...common,
      baseUrl: endpoints.issuerUrl,
      issuerContextId: rt.issuer.issuerContextId,
    });
  }
  if (which.includes("identity-hub") && endpoints.identityHubUrl)
    rt.identityHub = createIdentityHubClient({ ...common, baseUrl: endpoints.identityHubUrl });
}
