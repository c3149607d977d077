import type { LoaderFunctionArgs } from "@remix-run/node";
import {
  polledState,
  type PolledState,
  type PollFailure,
} from "../../components/route-kit/polled-state.server";

/**
 * Resource route polled by the transfer view: the transfer process's state as the connector has
 * it now (GET /api/transfers/{id} for the caller's participant context).
 */
export type TransferPollResult = PolledState | PollFailure;

export async function loader(args: LoaderFunctionArgs): Promise<TransferPollResult> {
  return polledState(args, "transfer", () => ({}));
}
