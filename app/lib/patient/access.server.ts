import { redirect, type AppLoadContext } from "@remix-run/node";
import type { SessionUser } from "../../../server/auth/user";
import { forbidden, requireUser } from "../../session.server";

import { mayAny, PATIENT_LIST_ROLES } from "../access.server";

/** for the list's loader, kept behind this `.server` module so the page's script does not take the patient service along (decision 0064) */
export { PATIENT_LIST_MAX, PATIENT_OFFSET_MAX } from "../../../server/patient/service";

/** the guard of the /patients views; a patient is sent to their own record instead of a 403 */
export async function requirePatientStaff(request: Request, context: AppLoadContext): Promise<SessionUser> {
  const user = await requireUser(request, context);
  if (mayAny(user, PATIENT_LIST_ROLES)) return user;
  if (user.roles.includes("PATIENT")) throw redirect("/my-record");
  throw forbidden();
}
