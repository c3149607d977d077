import { keyText } from "../http/kept";
import type { ConnectorClient } from "./connector-client";
import type { IdentityHubClient } from "./identity-hub-client";
import type { IssuerClient } from "./issuer-client";
import type { ReadCache } from "./read-cache";
import type { TenantManagerClient } from "./tenant-manager-client";
import type { UpstreamName } from "./upstream-http";

/**
 * The connector and tenant-manager clients behind one read cache: every read goes through
 * `cache.read` (short cache + coalescing of identical in-flight calls), every write invalidates the
 * whole cache once it has been answered, whatever its outcome (a failed write may still have
 * changed something). A provider's catalogue (another participant's answer, with fresh offer ids)
 * is only shared by identical requests in flight, never kept, except from the embedded dataspace,
 * whose every change (the provider's included) the cache follows; the onboarding reads and endpoint
 * data references (short-lived tokens) always go upstream.
 */

/** a write through this server: once answered, every kept answer is dropped (a write then a read returns the write) */
const invalidating =
  (cache: ReadCache) =>
  async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      cache.invalidate();
    }
  };

export function cachedConnector(client: ConnectorClient, cache: ReadCache): ConnectorClient {
  const write = invalidating(cache);
  return {
    managementUrl: client.managementUrl,
    apiVersion: client.apiVersion,
    listParticipantContexts: (signal) =>
      cache.read(keyText("contexts"), signal, (s) => client.listParticipantContexts(s)),
    getParticipantContext: (id, signal) =>
      cache.read(keyText("context", id), signal, (s) => client.getParticipantContext(id, s)),
    listAssets: (id, signal) => cache.read(keyText("assets", id), signal, (s) => client.listAssets(id, s)),
    createAsset: (id, asset, signal) => write(client.createAsset(id, asset, signal)),
    // the graph bridge's check of an asset's terms reads the connector's copy as it is now
    getAsset: (id, assetId, signal) => client.getAsset(id, assetId, signal),
    deleteAsset: (id, assetId, signal) => write(client.deleteAsset(id, assetId, signal)),
    listPolicyDefinitions: (id, signal) =>
      cache.read(keyText("policies", id), signal, (s) => client.listPolicyDefinitions(id, s)),
    // whether an asset may be offered under it: as the connector holds it now
    getPolicyDefinition: (id, policyId, signal) => client.getPolicyDefinition(id, policyId, signal),
    createPolicyDefinition: (id, definition, signal) =>
      write(client.createPolicyDefinition(id, definition, signal)),
    updatePolicyDefinition: (id, policyId, definition, signal) =>
      write(client.updatePolicyDefinition(id, policyId, definition, signal)),
    deletePolicyDefinition: (id, policyId, signal) =>
      write(client.deletePolicyDefinition(id, policyId, signal)),
    createContractDefinition: (id, definition, signal) =>
      write(client.createContractDefinition(id, definition, signal)),
    listContractDefinitions: (id, signal) =>
      cache.read(keyText("contractdefinitions", id), signal, (s) => client.listContractDefinitions(id, s)),
    deleteContractDefinition: (id, definitionId, signal) =>
      write(client.deleteContractDefinition(id, definitionId, signal)),
    // another participant's answer, with offer ids the provider issues afresh on each request: not
    // kept (but from the embedded dataspace), identical requests in flight share one call
    requestCatalog: (id, request, signal) =>
      cache.share(keyText("catalog", id, request), signal, (s) => client.requestCatalog(id, request, s)),
    listNegotiations: (id, signal) =>
      cache.read(keyText("negotiations", id), signal, (s) => client.listNegotiations(id, s)),
    initiateNegotiation: (id, request, signal) => write(client.initiateNegotiation(id, request, signal)),
    getNegotiation: (id, negotiationId, signal) =>
      cache.read(keyText("negotiation", id, negotiationId), signal, (s) =>
        client.getNegotiation(id, negotiationId, s),
      ),
    listTransfers: (id, signal) =>
      cache.read(keyText("transfers", id), signal, (s) => client.listTransfers(id, s)),
    initiateTransfer: (id, request, signal) => write(client.initiateTransfer(id, request, signal)),
    terminateNegotiation: (id, negotiationId, reason, signal) =>
      write(client.terminateNegotiation(id, negotiationId, reason, signal)),
    terminateTransfer: (id, transferId, reason, signal) =>
      write(client.terminateTransfer(id, transferId, reason, signal)),
    getTransfer: (id, transferId, signal) =>
      cache.read(keyText("transfer", id, transferId), signal, (s) => client.getTransfer(id, transferId, s)),
    // the endpoint data reference carries a short-lived token: always live
    getEndpointDataReference: (id, transferId, signal) =>
      client.getEndpointDataReference(id, transferId, signal),
  };
}

/** the cache's read for one upstream (a failure names it) */
const readOf =
  (cache: ReadCache, upstream: UpstreamName) =>
  <T>(k: string, signal: AbortSignal | undefined, load: (s: AbortSignal) => Promise<T>) =>
    cache.read(k, signal, load, upstream);

export function cachedTenantManager(client: TenantManagerClient, cache: ReadCache): TenantManagerClient {
  const read = readOf(cache, "tenant manager");
  const write = invalidating(cache);
  return {
    baseUrl: client.baseUrl,
    // cells and dataspace profiles are read only on the way to a write (onboarding): always live
    listCells: (signal) => client.listCells(signal),
    listDataspaceProfiles: (signal) => client.listDataspaceProfiles(signal),
    listTenants: (signal) => read(keyText("tm", "tenants"), signal, (s) => client.listTenants(s)),
    createTenant: (properties, signal) => write(client.createTenant(properties, signal)),
    updateTenant: (id, properties, signal) => write(client.updateTenant(id, properties, signal)),
    listParticipantProfiles: (id, signal) =>
      read(keyText("tm", "participants", id), signal, (s) => client.listParticipantProfiles(id, s)),
    createParticipantProfile: (id, deployment, signal) =>
      write(client.createParticipantProfile(id, deployment, signal)),
  };
}

/**
 * The issuer's and the identity hub's credential lists behind the same read cache (the embedded
 * dataspace counts its issuances and revocations like any other change). A credential request and a
 * revocation through this server invalidate it; a credential's status and one credential (what a
 * revocation checks the holder against) are always read live.
 */
export function cachedIssuer(client: IssuerClient, cache: ReadCache): IssuerClient {
  const read = readOf(cache, "issuer");
  const write = invalidating(cache);
  return {
    baseUrl: client.baseUrl,
    issuerContextId: client.issuerContextId,
    listCredentialDefinitions: (signal) =>
      read(keyText("issuer", "definitions"), signal, (s) => client.listCredentialDefinitions(s)),
    listCredentials: (holderId, signal) =>
      read(keyText("issuer", "credentials", holderId), signal, (s) => client.listCredentials(holderId, s)),
    getCredential: (id, signal) => client.getCredential(id, signal),
    revokeCredential: (id, signal) => write(client.revokeCredential(id, signal)),
    credentialStatus: (id, signal) => client.credentialStatus(id, signal),
  };
}

export function cachedIdentityHub(client: IdentityHubClient, cache: ReadCache): IdentityHubClient {
  const read = readOf(cache, "identity hub");
  const write = invalidating(cache);
  return {
    baseUrl: client.baseUrl,
    listCredentials: (id, signal) =>
      read(keyText("identity hub", "credentials", id), signal, (s) => client.listCredentials(id, s)),
    requestCredentials: (id, request, signal) => write(client.requestCredentials(id, request, signal)),
  };
}
