import type { Account, FindAccount } from "oidc-provider";
import { findPersona, type Persona } from "../personas";

/**
 * Scopes and the claims each releases. Everything the app needs to build its user arrives with
 * the standard `openid profile email`: `realm_access` (exactly as Keycloak sends it),
 * `organization`, `organization_slug`, `participant_did` and `patient_id` are `profile` claims.
 * `roles` is accepted as well, as in Keycloak, and releases `realm_access` only.
 */
export const CLAIMS_BY_SCOPE = {
  openid: ["sub"],
  profile: [
    "name",
    "preferred_username",
    "realm_access",
    "organization",
    "organization_slug",
    "participant_did",
    "patient_id",
  ],
  email: ["email", "email_verified"],
  roles: ["realm_access"],
} as const;

export const SCOPES = ["openid", "offline_access", "profile", "email", "roles"] as const;

/** The claims of a persona; oidc-provider releases those the granted scopes cover. */
export function personaClaims(persona: Persona) {
  return {
    sub: persona.username,
    name: persona.name,
    preferred_username: persona.username,
    email: persona.email,
    email_verified: true,
    realm_access: { roles: [...persona.roles] },
    organization: persona.organisation,
    ...(persona.organisationSlug ? { organization_slug: persona.organisationSlug } : {}),
    ...(persona.participantDid ? { participant_did: persona.participantDid } : {}),
    ...(persona.patientId ? { patient_id: persona.patientId } : {}),
  };
}

/** Accounts are the personas; the account id (and `sub`) is the username. */
export const findAccount: FindAccount = (_ctx, sub): Account | undefined => {
  const persona = findPersona(sub);
  if (!persona) return undefined;
  return { accountId: persona.username, claims: () => personaClaims(persona) };
};
