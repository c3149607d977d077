import type { LoaderFunctionArgs } from "@remix-run/node";
import { polledState } from "../../components/route-kit/polled-state.server";

/**
 * Resource route polled by the transfer view: the transfer process's state as the connector has
 * it now (GET /api/transfers/{id} for the caller's participant context).
 */
export async function loader(args: LoaderFunctionArgs) {
  return polledState(args, "transfer", () => ({}));
}
