import type { LoaderFunctionArgs } from "@remix-run/node";
import { apiFailure, pollingParticipant } from "../../lib/dataspace/access.server";
import { requireRole } from "../../session.server";
import { DATASPACE_ROLES } from "../../lib/access.server";

/**
 * Resource route polled by the negotiation view: the negotiation's state as the connector has it
 * now (GET /api/negotiations/{id} for the caller's participant context).
 */
export interface NegotiationPoll {
  ok: true;
  id: string;
  state: string;
  contractId: string;
  errorDetail: string;
  stateTimestamp: number | null;
  /** when the server read it (ms since epoch) */
  at: number;
}
export type NegotiationPollResult = NegotiationPoll | { ok: false; error: string; detail: string | null };

export async function loader({
  request,
  context,
  params,
}: LoaderFunctionArgs): Promise<NegotiationPollResult> {
  const user = await requireRole(request, context, DATASPACE_ROLES);
  const ds = context.services.dataspace;
  const participantId = await pollingParticipant(
    ds,
    user,
    new URL(request.url).searchParams.get("participant"),
  );
  if (!participantId)
    return { ok: false, error: "No participant context to read the negotiation in", detail: null };
  try {
    const n = await ds.getNegotiation(participantId, params.id ?? "");
    const str = (v: unknown) => (typeof v === "string" ? v : "");
    return {
      ok: true,
      id: str(n["@id"]),
      state: str(n.state),
      contractId: str(n.contractId) || str(n.contractAgreementId),
      errorDetail: str(n.errorDetail),
      stateTimestamp: typeof n.stateTimestamp === "number" ? n.stateTimestamp : null,
      at: Date.now(),
    };
  } catch (e) {
    const f = apiFailure(e);
    return { ok: false, error: f.error, detail: f.detail };
  }
}
