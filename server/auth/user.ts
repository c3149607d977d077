import { ORGANISATIONS, type Organisation, type Persona, type Role } from "./personas";

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

/** the session user a persona signs in as: the same fields the OIDC callback builds from its claims */
export function personaSessionUser(p: Persona): SessionUser {
  return {
    sub: p.username,
    username: p.username,
    name: p.name,
    email: p.email,
    roles: [...p.roles],
    organisation: p.organisation,
    participantDid: p.participantDid,
    patientId: p.roles.includes("PATIENT") ? p.patientId : undefined,
  };
}
