import type { Config } from "../config";
import type { DataspaceEndpoints } from "../dataspace-protocol";
import { cachedConnector, cachedIdentityHub, cachedIssuer, cachedTenantManager } from "./cached-clients";
import { createConnectorClient } from "./connector-client";
import { createIdentityHubClient } from "./identity-hub-client";
import { createIssuerClient } from "./issuer-client";
import { managementTokens } from "./oauth-token";
import type { ReadCache } from "./read-cache";
import type { DataspaceRuntime } from "./runtime";
import { createTenantManagerClient } from "./tenant-manager-client";

export type DataspaceServiceName = "connector" | "tenant-manager" | "issuer" | "identity-hub";

export interface ServiceEndpoints {
  managementUrl: string;
  apiVersion: string;
  tenantManagerUrl?: string;
  issuerUrl?: string;
  identityHubUrl?: string;
  /** client credentials of the connector's token endpoint; no token source without tokenUrl */
  tokenUrl?: string;
  clientId?: string;
  clientSecret?: string;
  /** the connector's management API key (EDC `tokenbased` auth) */
  apiKey?: string;
  /** the issuer's and the identity hub's API keys (`x-api-key`); without one, the management token */
  issuerApiKey?: string;
  identityHubApiKey?: string;
  /** a runtime-scoped connector's one participant */
  participantId?: string;
  /** the issuer's participant context at its service (default `issuer`), and its DID (none: no issuance, no verification) */
  issuerContextId?: string;
  issuerDid?: string;
}

/**
 * The services' endpoints as configured, each unconfigured one the embedded dataspace's (`local`) when it
 * runs: the one mapping of configuration to clients, for the start and for a restart of a configured
 * service. A key goes with its URL: the configured service's (config refuses a key without its URL), else
 * the embedded one's.
 */
export function serviceEndpoints(config: Config, local?: DataspaceEndpoints): ServiceEndpoints | undefined {
  const connector = config.connector ?? local;
  if (!connector) return undefined;
  return {
    ...connector,
    tenantManagerUrl: config.tenantManagerUrl ?? local?.tenantManagerUrl,
    issuerUrl: config.issuerUrl ?? local?.issuerUrl,
    identityHubUrl: config.identityHubUrl ?? local?.identityHubUrl,
    issuerApiKey: config.issuerUrl ? config.issuerApiKey : local?.issuerApiKey,
    identityHubApiKey: config.identityHubUrl ? config.identityHubApiKey : local?.identityHubApiKey,
    issuerContextId: config.issuerUrl ? config.issuerContextId : local?.issuerContextId,
    issuerDid: config.issuerUrl ? config.issuerDid : local?.issuerDid,
  };
}

/**
 * The four upstream clients of `endpoints` behind `cache`, sharing one token source; a service
 * without its URL has none, a service with its API key sends that in place of the token (decision
 * 0114). What createDataspace starts with and a restart rebuilds.
 */
export function upstreamClients(
  endpoints: ServiceEndpoints,
  cache: ReadCache,
  timeoutMs: number,
  fetch?: typeof globalThis.fetch,
) {
  const { tenantManagerUrl, issuerUrl, identityHubUrl } = endpoints;
  const common = { timeoutMs, tokens: managementTokens(endpoints, timeoutMs, fetch), fetch };
  return {
    connector: cachedConnector(
      createConnectorClient({
        ...common,
        managementUrl: endpoints.managementUrl,
        apiVersion: endpoints.apiVersion,
        apiKey: endpoints.apiKey,
        participantId: endpoints.participantId,
      }),
      cache,
    ),
    tenantManager: tenantManagerUrl
      ? cachedTenantManager(createTenantManagerClient({ ...common, baseUrl: tenantManagerUrl }), cache)
      : undefined,
    issuer: issuerUrl
      ? cachedIssuer(
          createIssuerClient({
            ...common,
            baseUrl: issuerUrl,
            apiKey: endpoints.issuerApiKey,
            issuerContextId: endpoints.issuerContextId ?? "issuer",
          }),
          cache,
        )
      : undefined,
    identityHub: identityHubUrl
      ? cachedIdentityHub(
          createIdentityHubClient({
            ...common,
            baseUrl: identityHubUrl,
            apiKey: endpoints.identityHubApiKey,
          }),
          cache,
        )
      : undefined,
  };
}

/**
 * Fresh clients for a running dataspace, after a restart of a dataspace component (the operator
 * console's, or the container's of the embedded dataspace on the same address): the named clients of
 * `rt` rebuilt against `endpoints` (an unconfigured issuer stays unconfigured) behind the same read
 * cache, which drops what it kept from before the restart.
 */
export function reconnectClients(
  rt: DataspaceRuntime,
  which: readonly DataspaceServiceName[],
  endpoints: ServiceEndpoints,
): void {
  // Node's own fetch, not the dataspace's pool: a restart is asked for to get new connections
  const fresh = upstreamClients(endpoints, rt.readCache, rt.timeoutMs);
  if (which.includes("connector")) rt.connector = fresh.connector;
  if (which.includes("tenant-manager") && fresh.tenantManager) rt.tenantManager = fresh.tenantManager;
  if (which.includes("issuer") && rt.issuer && fresh.issuer) rt.issuer = fresh.issuer;
  if (which.includes("identity-hub") && fresh.identityHub) rt.identityHub = fresh.identityHub;
  rt.readCache.invalidate();
}
