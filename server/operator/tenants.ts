import { z } from "zod";
import type { Dataspace, ParticipantProfile, TenantRecord } from "../dataspace";
import { or502 } from "../dataspace/failures";
import { remainingDeadline, settle } from "../dataspace/runtime";
import { serviceUnavailable } from "../http/errors";

/**
 * The operator console's tenant list (GET /api/admin/tenants): the tenant manager's tenants, each with
 * its participant profiles, read through the read cache. `tenantInputs` asks for them, `tenantsOf` builds
 * the list from them, the route answers that list (server/http/kept).
 */

const orNull = z.string().nullable();
export const tenantSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  organisation: orNull,
  role: orNull,
  ehdsParticipantType: orNull,
  properties: z
    .record(z.string(), z.unknown())
    .describe("the tenant's properties as the tenant manager holds them"),
  participants: z.array(
    z.object({
      id: z.string(),
      identifier: z.string(),
      did: orNull,
      participantContextId: orNull,
      state: z.string().describe("ERROR, ACTIVE, PROVISIONING, or the tenant manager's state"),
      errorDetail: orNull,
    }),
  ),
});
export type Tenant = z.infer<typeof tenantSchema>;

export interface TenantInputs {
  tenants: readonly TenantRecord[];
  /** each tenant's profiles, null where that lookup failed (the tenant is listed without participants) */
  profiles: (readonly ParticipantProfile[] | null)[];
}

/** the tenants and their profiles; 503 without a tenant manager, 502 when the tenant list fails */
export async function tenantInputs(dataspace: Dataspace): Promise<TenantInputs> {
  const tm = dataspace.runtime.tenantManager;
  if (!tm) throw serviceUnavailable("No tenant manager is configured (TENANT_MANAGER_URL)");
  // no deadline armed per request for the first stage (see remainingDeadline)
  const startedAt = Date.now();
  const tenants = await or502(() => tm.listTenants(), "Failed to list tenants");
  const deadline = remainingDeadline(dataspace.runtime, startedAt);
  const profiles = await Promise.all(
    tenants.map(async (t) => {
      const r = await settle(tm.listParticipantProfiles(t.id, deadline));
      return r.ok ? r.value : null;
    }),
  );
  return { tenants, profiles };
}

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

export function tenantsOf({ tenants, profiles }: TenantInputs): Tenant[] {
  return tenants.map((t, i) => {
    const p = t.properties ?? {};
    return {
      id: t.id,
      displayName: str(p.displayName) ?? t.id,
      organisation: str(p.organization) ?? str(p.organisation),
      role: str(p.role),
      ehdsParticipantType: str(p.ehdsParticipantType),
      properties: p,
      participants: (profiles[i] ?? []).map((pp) => ({
        id: pp.id,
        identifier: pp.identifier,
        did: str(pp.properties?.did) ?? (pp.identifier.startsWith("did:") ? pp.identifier : null),
        participantContextId: str(pp.properties?.participantContextId),
        state: pp.error
          ? "ERROR"
          : (str((pp as Record<string, unknown>).state) ??
            (Array.isArray(pp.vpas) && pp.vpas.length ? "ACTIVE" : "PROVISIONING")),
        errorDetail: pp.errorDetail ?? null,
      })),
    };
  });
}
