import type { LoaderFunctionArgs } from "@remix-run/node";
import { apiFailure, pollingParticipant } from "../../lib/dataspace/access.server";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../../lib/access.server";

/**
 * Resource route polled by the transfer view: the transfer process's state as the connector has
 * it now (GET /api/transfers/{id} for the caller's participant context).
 */
export interface TransferPoll {
  ok: true;
  id: string;
  state: string;
  errorDetail: string;
  stateTimestamp: number | null;
  at: number;
}
export type TransferPollResult = TransferPoll | { ok: false; error: string; detail: string | null };

export async function loader({ request, context, params }: LoaderFunctionArgs): Promise<TransferPollResult> {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const participantId = await pollingParticipant(
    ds,
    user,
    new URL(request.url).searchParams.get("participant"),
  );
  if (!participantId)
    return { ok: false, error: "No participant context to read the transfer in", detail: null };
  try {
    const t = await ds.getTransfer(participantId, params.id ?? "");
    const str = (v: unknown) => (typeof v === "string" ? v : "");
    return {
      ok: true,
      id: str(t["@id"]),
      state: str(t.state),
      errorDetail: str(t.errorDetail),
      stateTimestamp: typeof t.stateTimestamp === "number" ? t.stateTimestamp : null,
      at: Date.now(),
    };
  } catch (e) {
    const f = apiFailure(e);
    return { ok: false, error: f.error, detail: f.detail };
  }
}
