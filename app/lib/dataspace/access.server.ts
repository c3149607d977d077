import type { AppLoadContext } from "@remix-run/node";
import type { SessionUser } from "../../../server/auth/user";
import type { Dataspace } from "../../../server/dataspace";
import { decideActing, ownContextId } from "../../../server/dataspace/acting";
export { EVERY_PARTICIPANT, negotiationsAcross } from "../../../server/dataspace/across";
import { isApiError } from "../../../server/http/errors";
import { forbidden, requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../access.server";
import { clientError } from "../api-errors.server";
import { str } from "./records.server";

/**
 * On whose behalf a dataspace view acts (who may open it: app/lib/access.server.ts), by the one rule of
 * server/dataspace/acting.ts that the API follows too: members of an organisation act as their
 * organisation's participant context, always (asking for another answers 403); connector admins
 * choose any context.
 */

/** a member asked for a context that is not theirs: the page answers 403, as the API does */
function refuseOther(user: SessionUser, own: string | undefined, requested: string | null): void {
  if (!requested) return;
  try {
    decideActing(user, own, requested);
  } catch (e) {
    if (isApiError(e)) throw forbidden(e.message);
    throw e;
  }
}

/** the caller's own organisation's participant context, undefined when it has none */
export async function ownContext(ds: Dataspace, user: SessionUser): Promise<string | undefined> {
  return ownContextId(await ds.participantForUser(user));
}

/** a view's write in a participant context (a policy): 403 unless the caller may act in it */
export async function requireActingIn(
  ds: Dataspace,
  user: SessionUser,
  participantId: string,
): Promise<void> {
  refuseOther(user, await ownContext(ds, user), participantId || null);
}

export { mayAny as hasRole } from "../access.server";
export const isAdmin = (user: SessionUser) => user.roles.includes("CONNECTOR_ADMIN");

export function toChoice(p: Record<string, unknown>) {
  return {
    participantId: str(p.participantId) || str(p["@id"]),
    displayName: str(p.displayName) || str(p.participantId) || str(p["@id"]),
    role: str(p.role),
    did: str(p.identity) || str(p.participantId),
    state: str(p.state) || "ACTIVATED",
    demo: p._demo === true,
  };
}

export type ParticipantChoice = ReturnType<typeof toChoice>;

/** The participant list, or an empty list and the reason when it cannot be had. */
export async function listChoices(
  ds: Dataspace,
): Promise<{ participants: ParticipantChoice[]; error: string | null }> {
  try {
    return { participants: (await ds.listParticipants()).map(toChoice), error: null };
  } catch (e) {
    return { participants: [], error: apiFailure(e).error };
  }
}

/**
 * The participant context a view reads and acts for (the rule above), or null and the `reason` there is
 * none. Admins choose among `choices`: the requested context when it is listed, else the first with
 * `preferRole`, else the first listed; members see their own context only.
 */
export async function actingParticipant(
  ds: Dataspace,
  user: SessionUser,
  requested: string | null,
  preferRole: string,
  listed?: ParticipantChoice[],
) {
  if (isAdmin(user)) {
    const choices = listed ?? (await listChoices(ds)).participants;
    const chosen =
      choices.find((c) => c.participantId === requested) ??
      choices.find((c) => c.role === preferRole) ??
      choices[0];
    return {
      participantId: chosen?.participantId ?? null,
      displayName: chosen?.displayName ?? "",
      did: chosen?.did ?? "",
      canChoose: true,
      choices,
      reason: chosen ? null : "No participant context is available.",
    };
  }
  const me = await ds.participantForUser(user);
  const own = ownContextId(me);
  refuseOther(user, own, requested);
  return {
    participantId: own ? me.id : null,
    displayName: me.displayName,
    did: own ? (me.did ?? "") : "",
    canChoose: false,
    choices: [],
    reason: own ? null : `${user.organisation} is not a participant of the dataspace.`,
  };
}

export type Acting = Awaited<ReturnType<typeof actingParticipant>>;

/** clientError (api-errors.server) as the dataspace pages' notice: `{ error, detail, status }` */
export function apiFailure(e: unknown): { error: string; detail: string | null; status: number } {
  const { status, message, detail } = clientError(e);
  return { error: message, detail, status };
}

/**
 * The context for a polling resource route, cheaply: an admin's requested context as it is (an
 * admin may act for any), a member's own context (another requested one answers 403).
 */
export async function pollingParticipant(
  ds: Dataspace,
  user: SessionUser,
  requested: string | null,
): Promise<string | null> {
  if (isAdmin(user)) return requested;
  const own = await ownContext(ds, user);
  refuseOther(user, own, requested);
  return own ?? null;
}

/**
 * The preamble of the dataspace views' loaders: a dataspace role, the participant choices, and the
 * context the view acts in (`?participant=` for admins; members always act as their organisation).
 */
export async function loadActing(request: Request, context: AppLoadContext) {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const { participants, error: participantsError } = await listChoices(ds);
  const acting = await actingParticipant(
    ds,
    user,
    new URL(request.url).searchParams.get("participant"),
    "DATA_USER",
    participants,
  );
  return { user, ds, participants, participantsError, acting };
}

/** a form's text fields by name, trimmed ("" when absent or a file) */
export const formText = (form: FormData) => (name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
};

/** a detail page loader's failure: a record the connector does not have is the page's 404 with `missing`, any other failure its error as 502 */
export function recordFailure(e: unknown, missing: string): Response {
  const f = apiFailure(e);
  return new Response(f.status === 404 ? missing : f.error, { status: f.status === 404 ? 404 : 502 });
}
