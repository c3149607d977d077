import { ORGANISATIONS, type Organisation, type Role } from "./personas";

/** The signed-in user as the app sees it, built from the verified ID token claims. */
export interface SessionUser {
  /** the provider's subject */
  sub: string;
  username: string;
  name: string;
  email?: string;
  roles: Role[];
  organisation: string;
  /** the organisation's dataspace identity (did:web), when known */
  participantDid?: string;
  /** the linked patient record (PATIENT role) */
  patientId?: string;
}

export function hasAnyRole(user: SessionUser | null | undefined, roles: readonly Role[]): boolean {
  return !!user && roles.some((r) => user.roles.includes(r));
}

/** The user's organisation among the five known ones, by DID or display name. */
export function organisationOf(
  user: Pick<SessionUser, "organisation" | "participantDid">,
): Organisation | undefined {
  return ORGANISATIONS.find((o) => o.did === user.participantDid || o.displayName === user.organisation);
}

export function organisationSlugOf(
  user: Pick<SessionUser, "organisation" | "participantDid">,
): string | undefined {
  return organisationOf(user)?.slug;
}
