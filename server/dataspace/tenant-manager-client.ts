import { z } from "zod";
import { createUpstreamHttp, type UpstreamClientOptions } from "./upstream-http";
import {
  cellSchema,
  dataspaceProfileSchema,
  participantProfileSchema,
  tenantSchema,
} from "./upstream-schemas";

/**
 * Client of the tenant manager of the connector fabric manager (`/api/v1alpha1`): cells,
 * dataspace profiles, tenants and their participant profiles. Creating a participant profile
 * deploys the participant's virtual agents (DID, keys, participant context) in a cell.
 */
export interface NewParticipantProfileDeployment {
  /** the participant identifier the agents are provisioned for */
  identifier: string;
  cellId: string;
  dataspaceProfileIds: string[];
  properties?: Record<string, unknown>;
}

export type TenantManagerClient = ReturnType<typeof createTenantManagerClient>;

export function createTenantManagerClient(options: UpstreamClientOptions) {
  const root = options.baseUrl.replace(/\/+$/, "");
  const http = createUpstreamHttp({
    ...options,
    name: "tenant manager",
    baseUrl: /\/v1alpha1$/.test(root) ? root : `${root}/api/v1alpha1`,
  });
  const t = (id: string) => `/tenants/${encodeURIComponent(id)}`;
  return {
    baseUrl: http.baseUrl,
    listCells: (signal?: AbortSignal) =>
      http.request("GET", "/cells", { schema: z.array(cellSchema), signal }),
    listDataspaceProfiles: (signal?: AbortSignal) =>
      http.request("GET", "/dataspace-profiles", { schema: z.array(dataspaceProfileSchema), signal }),
    listTenants: (signal?: AbortSignal) =>
      http.request("GET", "/tenants", { schema: z.array(tenantSchema), signal }),
    createTenant: (properties: Record<string, unknown>, signal?: AbortSignal) =>
      http.request("POST", "/tenants", { schema: tenantSchema, body: { properties }, signal }),
    /** merges `properties` into the tenant's properties */
    updateTenant: (id: string, properties: Record<string, unknown>, signal?: AbortSignal) =>
      http.request("PATCH", t(id), { schema: tenantSchema, body: { properties }, signal }),
    listParticipantProfiles: (id: string, signal?: AbortSignal) =>
      http.request("GET", `${t(id)}/participant-profiles`, {
        schema: z.array(participantProfileSchema),
        signal,
      }),
    createParticipantProfile: (
      id: string,
      deployment: NewParticipantProfileDeployment,
      signal?: AbortSignal,
    ) =>
      http.request("POST", `${t(id)}/participant-profiles`, {
        schema: participantProfileSchema,
        body: deployment,
        signal,
      }),
  };
}
