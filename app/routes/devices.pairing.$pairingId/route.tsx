import type { LoaderFunctionArgs } from "@remix-run/node";
import { jsonOrError } from "../../lib/api-errors.server";
import { requireRole } from "../../session.server";
import { PATIENT_ROLES } from "../../lib/access.server";

/** Resource route polled by the Devices page while a pairing is pending: its state (same as the API's). */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, PATIENT_ROLES);
  return jsonOrError(async () => ({
    body: await context.services.patientApp.pairing(user, params.pairingId ?? ""),
  }));
}
