import { cachedConnector, cachedIdentityHub, cachedIssuer, cachedTenantManager } from "./cached-clients";
import { createConnectorClient } from "./connector-client";
import { createIdentityHubClient } from "./identity-hub-client";
import { createIssuerClient } from "./issuer-client";
import { managementTokens } from "./oauth-token";
import type { DataspaceRuntime } from "./runtime";
import { createTenantManagerClient } from "./tenant-manager-client";

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
  /** the connector's management API key (EDC `tokenbased` auth) */
  apiKey?: string;
}

/**
 * rebuilds the named clients of `rt` against `endpoints` (an unconfigured issuer stays unconfigured),
 * behind the same read cache as the clients they replace; what the cache kept from before the restart
 * is dropped
 */
export function reconnectClients(
  rt: DataspaceRuntime,
  which: readonly DataspaceServiceName[],
  endpoints: ServiceEndpoints,
): void {
  // Node's own fetch, not the dataspace's pool: a restart of the embedded dataspace closes that pool with it
  // (and a restart is asked for to get new connections)
  const tokens = endpoints.clientId ? managementTokens(endpoints, rt.timeoutMs) : undefined;
  const common = { timeoutMs: rt.timeoutMs, tokens };
  const cache = rt.readCache;
  const behindCache = <T>(client: T, wrap: (client: T, cache: NonNullable<typeof rt.readCache>) => T) =>
    cache ? wrap(client, cache) : client;
  if (which.includes("connector"))
    rt.connector = behindCache(
      createConnectorClient({
        ...common,
        managementUrl: endpoints.managementUrl,
        apiVersion: endpoints.apiVersion,
        apiKey: endpoints.apiKey,
      }),
      cachedConnector,
    );
  if (which.includes("tenant-manager") && endpoints.tenantManagerUrl)
    rt.tenantManager = behindCache(
      createTenantManagerClient({ ...common, baseUrl: endpoints.tenantManagerUrl }),
      cachedTenantManager,
    );
  if (which.includes("issuer") && endpoints.issuerUrl && rt.issuer) {
    rt.issuer = behindCache(
      createIssuerClient({
        ...common,
        baseUrl: endpoints.issuerUrl,
        issuerContextId: rt.issuer.issuerContextId,
      }),
      cachedIssuer,
    );
  }
  if (which.includes("identity-hub") && endpoints.identityHubUrl)
    rt.identityHub = behindCache(
      createIdentityHubClient({ ...common, baseUrl: endpoints.identityHubUrl }),
      cachedIdentityHub,
    );
  // answers of the service before its restart are not the restarted service's
  cache?.invalidate();
}
