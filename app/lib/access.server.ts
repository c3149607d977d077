import type { Role } from "../../server/auth/personas";
import type { SessionUser } from "../../server/auth/user";
import { ROUTES, type HttpMethod } from "../../server/http/route-table";

/**
 * Who may reach each view, derived from the one route table (server/http/route-table.ts): a view
 * is open to the roles of the API route it shows (`rolesOf("GET /api/analytics")`). The guards
 * (requireRole in loaders and actions), the navigation (app/lib/navigation.server.ts) and the
 * views' own checks read these lists; none is written out by hand. A key the table does not
 * hold, or one that is not a role list, fails at start-up.
 */

/** the roles of one route of the table, by key: "GET /api/analytics" */
export function rolesOf(key: string): readonly Role[] {
  const [method, path] = key.split(" ") as [HttpMethod, string];
  const access = ROUTES.find((r) => r.path === path)?.methods[method]?.access;
  if (!access) throw new Error(`access: the route table has no ${key}`);
  if (access.kind !== "session" || access.roles === "any")
    throw new Error(`access: ${key} is not limited to roles (${access.kind})`);
  return access.roles;
}

export const mayAny = (user: Pick<SessionUser, "roles">, roles: readonly Role[]) =>
  roles.some((r) => user.roles.includes(r));

// explore
/** everyone but patients (the route table's staff list): graph, assets, participants */
export const STAFF_ROLES = rolesOf("GET /api/graph");
export const GRAPH_ROLES = STAFF_ROLES;
export const PUBLISHER_ROLES = rolesOf("POST /api/catalog");
export const ANALYTICS_ROLES = rolesOf("GET /api/analytics");
export const COHORT_ROLES = rolesOf("GET /api/federated");
export const QUESTION_ROLES = rolesOf("POST /api/nlq");
/** GET /api/eehrxf answers any session; its view shows the staff's coverage board */
export const EEHRXF_ROLES = STAFF_ROLES;

// dataspace
export const DATASPACE_ROLES = rolesOf("GET /api/negotiations");
export const ASSET_WRITE_ROLES = rolesOf("POST /api/assets");
export const ONBOARDING_ROLES = rolesOf("POST /api/participants");

// care
/** /patients: the holders of records and operators, not the patients themselves */
export const PATIENT_LIST_ROLES = rolesOf("GET /api/patient/profile").filter((r) => r !== "PATIENT");
/** /my-record and /devices: the patient's own views */
export const PATIENT_ROLES = rolesOf("GET /api/patient/app-devices");

// access body
export const HDAB_ROLES = rolesOf("GET /api/activity-report");
export const HDAB_DECIDER_ROLES = rolesOf("POST /api/compliance/requests/decide");
export const APPLICANT_ROLES = rolesOf("POST /api/compliance/applications");
export const FINDINGS_ROLES = rolesOf("GET /api/compliance/findings");
export const FINDING_RESPONDER_ROLES = rolesOf("POST /api/compliance/findings/respond");

// governance and operation
export const ADMIN_ROLES = rolesOf("GET /api/admin/components");
export const POLICY_ROLES = rolesOf("GET /api/admin/policies");
export const AUDIT_ROLES = rolesOf("GET /api/admin/audit");
export const TRUST_CENTER_ROLES = rolesOf("GET /api/trust-center");
export const CREDENTIAL_ROLES = rolesOf("GET /api/credentials");
export const CREDENTIAL_REQUEST_ROLES = rolesOf("POST /api/credentials/request");
export const CREDENTIAL_REVOKE_ROLES = rolesOf("DELETE /api/credentials/:id");

/**
 * Who a signed-in user is to the services (the graph's reader, the user's organisation), for loaders
 * and actions: taken from here, not from server/, so that a route's browser script does not take those
 * modules along (decision 0064).
 */
export { readerOf } from "../../server/graph/service";
export { organisationSlugOf } from "../../server/auth/user";
/** the application's states and the access body's "awaiting a decision" filter, for loaders (server/access-body/machines takes the error model along) */
export { APPLICATION, UNDECIDED, UNDECIDED_APPLICATION_STATES } from "../../server/access-body/machines";

/**
 * A loader's promise as a value: `{ ok, value }`, or `{ ok: false, error }` with `error` as `fail` reads
 * the failure. Here because every loader takes this `.server` module already: one of its own would add
 * its empty browser stand-in to each page's scripts.
 */
export const settle = <T, E>(p: Promise<T>, fail: (e: unknown) => E) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (e: unknown) => ({ ok: false as const, error: fail(e) }),
  );
