import { z } from "zod";
import { createUpstreamHttp, type UpstreamClientOptions } from "./upstream-http";
import {
  cellSchema,
  dataspaceProfileSchema,
  participantProfileSchema,
  tenantSchema,
  type ParticipantProfile,
  type Tenant,
} from "./upstream-schemas";

/**
 * Client of the tenant manager of the connector fabric manager (`/api/v1alpha1`): cells,
 * dataspace profiles, tenants and their participant profiles. Creating a participant profile
 * deploys the participant's virtual agents (DID, keys, participant context) in a cell.
 */
export interface TenantManagerClient {
  readonly baseUrl: string;
  listCells(signal?: AbortSignal): Promise<z.infer<typeof cellSchema>[]>;
  listDataspaceProfiles(signal?: AbortSignal): Promise<z.infer<typeof dataspaceProfileSchema>[]>;
  listTenants(signal?: AbortSignal): Promise<Tenant[]>;
  createTenant(properties: Record<string, unknown>, signal?: AbortSignal): Promise<Tenant>;
  /** merges `properties` into the tenant's properties */
  updateTenant(tenantId: string, properties: Record<string, unknown>, signal?: AbortSignal): Promise<Tenant>;
  listParticipantProfiles(tenantId: string, signal?: AbortSignal): Promise<ParticipantProfile[]>;
  createParticipantProfile(
    tenantId: string,
    deployment: NewParticipantProfileDeployment,
    signal?: AbortSignal,
  ): Promise<ParticipantProfile>;
}

export interface NewParticipantProfileDeployment {
  /** the participant identifier the agents are provisioned for */
  identifier: string;
  cellId: string;
  dataspaceProfileIds: string[];
  properties?: Record<string, unknown>;
}

export function createTenantManagerClient(options: UpstreamClientOptions): TenantManagerClient {
  const root = options.baseUrl.replace(/\/+$/, "");
  const http = createUpstreamHttp({
    ...options,
    name: "tenant manager",
    baseUrl: /\/v1alpha1$/.test(root) ? root : `${root}/api/v1alpha1`,
  });
  const t = (id: string) => `/tenants/${encodeURIComponent(id)}`;
  return {
    baseUrl: http.baseUrl,
    listCells: (signal) => http.request("GET", "/cells", { schema: z.array(cellSchema), signal }),
    listDataspaceProfiles: (signal) =>
      http.request("GET", "/dataspace-profiles", { schema: z.array(dataspaceProfileSchema), signal }),
    listTenants: (signal) => http.request("GET", "/tenants", { schema: z.array(tenantSchema), signal }),
    createTenant: (properties, signal) =>
      http.request("POST", "/tenants", { schema: tenantSchema, body: { properties }, signal }),
    updateTenant: (id, properties, signal) =>
      http.request("PATCH", t(id), { schema: tenantSchema, body: { properties }, signal }),
    listParticipantProfiles: (id, signal) =>
      http.request("GET", `${t(id)}/participant-profiles`, {
        schema: z.array(participantProfileSchema),
        signal,
      }),
    createParticipantProfile: (id, deployment, signal) =>
      http.request("POST", `${t(id)}/participant-profiles`, {
        schema: participantProfileSchema,
        body: deployment,
        signal,
      }),
  };
}
