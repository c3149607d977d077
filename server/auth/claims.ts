import { z } from "zod";
import { ROLES, findOrganisation, type Role } from "./personas";
import type { SessionUser } from "./user";

/**
 * ID token claims as Keycloak (with the realm the project ships, deploy/keycloak/realm.json) and the
 * embedded provider send them. Roles come from `realm_access.roles`; roles the app does not know are
 * ignored, the others kept in the order of ROLES (Keycloak sends them in no set order). The claims are the only source: a user whose token lacks them has no roles, no
 * organisation, no DID and no patient record (nothing is filled in from the persona table).
 *
 * `organization` comes in three shapes: the realm's attribute mapper sends the display name as a
 * string; Keycloak 26's built-in `organization` scope sends the aliases of the user's organisations
 * as an array (`["pharmaco"]`) or, with its "add organization id/attributes" switches, as an object
 * keyed by alias (`{ "pharmaco": { "id": "…" } }`). An alias that names one of the known
 * organisations becomes its display name.
 */
const organizationClaim = z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())]);

export const idTokenClaims = z.object({
  sub: z.string().min(1),
  preferred_username: z.string().optional(),
  name: z.string().optional(),
  email: z.string().optional(),
  realm_access: z.object({ roles: z.array(z.string()) }).optional(),
  organization: organizationClaim.optional(),
  participant_did: z.string().optional(),
  patient_id: z.string().optional(),
});

export type IdTokenClaims = z.infer<typeof idTokenClaims>;

/** the first organisation the claim names, as a display name when it is a known alias */
export function organisationFromClaim(claim: IdTokenClaims["organization"]): string | undefined {
  const first =
    typeof claim === "string" ? claim : Array.isArray(claim) ? claim[0] : claim && Object.keys(claim)[0];
  if (!first) return undefined;
  return findOrganisation(first)?.displayName ?? first;
}

export function userFromClaims(claims: IdTokenClaims): SessionUser {
  const username = claims.preferred_username ?? claims.sub;
  // in the table's order, whatever order the provider sends them in
  const claimed = claims.realm_access?.roles ?? [];
  const roles: Role[] = ROLES.filter((r) => claimed.includes(r));
  return {
    sub: claims.sub,
    username,
    name: claims.name ?? username,
    email: claims.email,
    roles,
    organisation: organisationFromClaim(claims.organization) ?? "",
    participantDid: claims.participant_did,
    patientId: roles.includes("PATIENT") ? claims.patient_id : undefined,
  };
}
