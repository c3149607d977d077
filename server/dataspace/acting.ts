import type { SessionUser } from "../auth/user";
import { forbidden } from "../http/errors";
import type { Participant } from "./participants";

/**
 * The one rule of acting participants (issue 34): in which participant context a caller may read
 * and act in the dataspace. A CONNECTOR_ADMIN operates the connector and acts in any context; every
 * other role reads and writes only its own organisation's context, and a caller without one (an
 * organisation that is not a participant) acts in none. Used by the API handlers
 * (Dataspace.actingFor) and the views (app/lib/dataspace/access.server.ts) alike.
 */

export const NOT_YOUR_CONTEXT = "You may act only in your own organisation's participant context";
export const NO_CONTEXT = "Your organisation is not a participant of the dataspace";

export const actsForAnyContext = (user: Pick<SessionUser, "roles">) => user.roles.includes("CONNECTOR_ADMIN");

/**
 * Who reads every context without acting in it: the connector's operator and the access body
 * (HDAB_AUTHORITY), which supervises the space: it reads any context's credentials and ODRL
 * policies, but writes a policy only in its own organisation's context like everyone else. Used by
 * the credential listings (server/credentials), the participant's credentials route and the policy
 * routes (server/policies/handlers.ts).
 */
export const readsAnyContext = (user: Pick<SessionUser, "roles">) =>
  actsForAnyContext(user) || user.roles.includes("HDAB_AUTHORITY");

/** the caller's own participant context id, from participantForUser; undefined when it has none */
export function ownContextId(me: Participant): string | undefined {
  return me.did && !me.id.startsWith("user:") ? me.id : undefined;
}

/**
 * The rule itself: may `user`, whose own context is `own`, act in `requested`? Answers the
 * context to act in, or throws the 403 that says why not.
 */
export function decideActing(
  user: Pick<SessionUser, "roles">,
  own: string | undefined,
  requested: string,
): string {
  if (actsForAnyContext(user)) return requested;
  if (!own) throw forbidden(NO_CONTEXT);
  if (requested !== own) throw forbidden(NOT_YOUR_CONTEXT);
  return own;
}
