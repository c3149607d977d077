import type { LoaderFunctionArgs } from "@remix-run/node";
import type { ParticipantStatus } from "../../../server/dataspace/participants";
import { apiFailure } from "../../lib/dataspace/access.server";
import { requireRole } from "../../session.server";
import { STAFF_ROLES } from "../../lib/access.server";

/**
 * Resource route polled by the onboarding view while a new participant is provisioned: its
 * participant context in any state (CREATED, then ACTIVATED with its DID).
 */
export type ParticipantPollResult =
  | ({ ok: true; at: number } & ParticipantStatus)
  | { ok: false; error: string; detail: string | null; status: number };

export async function loader({
  request,
  context,
  params,
}: LoaderFunctionArgs): Promise<ParticipantPollResult> {
  await requireRole(request, context, STAFF_ROLES);
  try {
    const status = await context.services.dataspace.participantStatus(params.id ?? "");
    return { ok: true, at: Date.now(), ...status };
  } catch (e) {
    const f = apiFailure(e);
    return { ok: false, ...f };
  }
}
