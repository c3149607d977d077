import type { LoaderFunctionArgs } from "@remix-run/node";
import {
  polledState,
  stringField,
  type PolledState,
  type PollFailure,
} from "../../components/route-kit/polled-state.server";

/**
 * Resource route polled by the negotiation view: the negotiation's state as the connector has it
 * now (GET /api/negotiations/{id} for the caller's participant context).
 */
export type NegotiationPollResult = (PolledState & { contractId: string }) | PollFailure;

export async function loader(args: LoaderFunctionArgs): Promise<NegotiationPollResult> {
  return polledState(args, "negotiation", (n) => ({
    contractId: stringField(n.contractId) || stringField(n.contractAgreementId),
  }));
}
