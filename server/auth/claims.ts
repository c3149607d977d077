import { z } from "zod";
import { ROLES, findPersona, type Role } from "./personas";
import type { SessionUser } from "./user";

/**
 * ID token claims as Keycloak (and the embedded provider) send them. Roles come from
 * `realm_access.roles`; roles the app does not know are ignored.
 */
export const idTokenClaims = z.object({
  sub: z.string().min(1),
  preferred_username: z.string().optional(),
  name: z.string().optional(),
  email: z.string().optional(),
  realm_access: z.object({ roles: z.array(z.string()) }).optional(),
  organization: z.union([z.string(), z.array(z.string())]).optional(),
  participant_did: z.string().optional(),
  patient_id: z.string().optional(),
});

export type IdTokenClaims = z.infer<typeof idTokenClaims>;

export function userFromClaims(claims: IdTokenClaims): SessionUser {
  const username = claims.preferred_username ?? claims.sub;
  const roles = (claims.realm_access?.roles ?? []).filter((r): r is Role =>
    (ROLES as readonly string[]).includes(r),
  );
  const persona = findPersona(username);
  const organisation = Array.isArray(claims.organization) ? claims.organization[0] : claims.organization;
  return {
    sub: claims.sub,
    username,
    name: claims.name ?? username,
    email: claims.email,
    roles,
    organisation: organisation ?? persona?.organisation ?? "",
    participantDid: claims.participant_did ?? persona?.participantDid,
    patientId: claims.patient_id ?? (roles.includes("PATIENT") ? persona?.patientId : undefined),
  };
}
