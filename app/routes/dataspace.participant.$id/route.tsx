import type { LoaderFunctionArgs } from "@remix-run/node";
import { apiFailure } from "../../lib/dataspace/access.server";
import { requireRole } from "../../session.server";
import { STAFF_ROLES } from "../../lib/access.server";

/**
 * Resource route polled by the onboarding view while a new participant is provisioned: its
 * participant context in any state (CREATED, then ACTIVATED with its DID).
 */
export type ParticipantPollResult = Awaited<ReturnType<typeof loader>>;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireRole(request, context, STAFF_ROLES);
  try {
    const status = await context.services.dataspace.participantStatus(params.id ?? "");
    return { ok: true as const, at: Date.now(), ...status };
  } catch (e) {
    return { ok: false as const, ...apiFailure(e) };
  }
}
