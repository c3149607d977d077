import type { LoaderFunctionArgs } from "@remix-run/node";
import { polledState } from "../../components/route-kit/polled-state.server";
import { str } from "../../lib/dataspace/records.server";

/**
 * Resource route polled by the negotiation view: the negotiation's state as the connector has it
 * now (GET /api/negotiations/{id} for the caller's participant context).
 */
export async function loader(args: LoaderFunctionArgs) {
  return polledState(args, "negotiation", (n) => ({
    contractId: str(n.contractId) || str(n.contractAgreementId),
  }));
}
