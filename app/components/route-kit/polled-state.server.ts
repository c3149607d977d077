import type { LoaderFunctionArgs } from "@remix-run/node";
import { apiFailure, pollingParticipant } from "../../lib/dataspace/access.server";
import { str } from "../../lib/dataspace/records.server";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../../lib/access.server";

/** The state a connector record (negotiation, transfer) is in now, as its live view polls it. */
export interface PolledState {
  ok: true;
  id: string;
  state: string;
  errorDetail: string;
  stateTimestamp: number | null;
  /** when the server read it (ms since epoch) */
  at: number;
}
export type PollFailure = { ok: false; error: string; detail: string | null };

/**
 * Reads one of the caller's participant context's records (`?participant=` for admins) with `read`,
 * and answers its state, with what `more` takes from it; a failure is an answer too, for the view.
 */
export async function polledState<More extends object>(
  { request, context, params }: LoaderFunctionArgs,
  what: "negotiation" | "transfer",
  more: (record: Record<string, unknown>) => More,
): Promise<(PolledState & More) | PollFailure> {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const participantId = await pollingParticipant(
    ds,
    user,
    new URL(request.url).searchParams.get("participant"),
  );
  if (!participantId)
    return { ok: false, error: `No participant context to read the ${what} in`, detail: null };
  try {
    const id = params.id ?? "";
    const r = await (what === "negotiation"
      ? ds.getNegotiation(participantId, id)
      : ds.getTransfer(participantId, id));
    return {
      ok: true,
      id: str(r["@id"]),
      state: str(r.state),
      ...more(r),
      errorDetail: str(r.errorDetail),
      stateTimestamp: typeof r.stateTimestamp === "number" ? r.stateTimestamp : null,
      at: Date.now(),
    };
  } catch (e) {
    const f = apiFailure(e);
    return { ok: false, error: f.error, detail: f.detail };
  }
}
