import type { Role } from "../../server/auth/personas";
import {
  ADMIN_ROLES,
  ANALYTICS_ROLES,
  APPLICANT_ROLES,
  ASSET_WRITE_ROLES,
  AUDIT_ROLES,
  COHORT_ROLES,
  CREDENTIAL_ROLES,
  DATASPACE_ROLES,
  EEHRXF_ROLES,
  FINDING_RESPONDER_ROLES,
  GRAPH_ROLES,
  HDAB_ROLES,
  ONBOARDING_ROLES,
  PATIENT_LIST_ROLES,
  PATIENT_ROLES,
  POLICY_ROLES,
  QUESTION_ROLES,
  STAFF_ROLES,
  TRUST_CENTER_ROLES,
} from "./access.server";

/**
 * The role-aware navigation: one entry per view, shown to the roles that may open it ("any": every
 * signed-in user). The role lists come from app/lib/access.server.ts (derived from the route
 * table); the root loader hands each user only their entries, so views hold no role list.
 */
export interface NavEntry {
  to: string;
  label: string;
}
/** the task an entry serves: the main navigation shows one group per task, in the order of NAV_ITEMS */
export interface NavItem extends NavEntry {
  group: "Explore" | "Exchange" | "Care" | "Govern" | "Operate";
}
interface Gated<T> {
  item: T;
  roles: "any" | readonly Role[];
}

const item = (
  to: string,
  label: string,
  roles: "any" | readonly Role[],
  group: NavItem["group"],
): Gated<NavItem> => ({ item: { to, label, group }, roles });

export const NAV_ITEMS: Gated<NavItem>[] = [
  item("/", "Overview", "any", "Explore"),
  item("/catalogue", "Catalogue", "any", "Explore"),
  item("/graph", "Knowledge graph", GRAPH_ROLES, "Explore"),
  // insight (issue 6): OMOP analytics, federated cohorts, questions, EEHRxF coverage
  item("/analytics", "Analytics", ANALYTICS_ROLES, "Explore"),
  item("/cohorts", "Cohort builder", COHORT_ROLES, "Explore"),
  item("/ask", "Ask a question", QUESTION_ROLES, "Explore"),
  item("/eehrxf", "EEHRxF coverage", EEHRXF_ROLES, "Explore"),
  // dataspace (issue 3): participants, assets, negotiations, transfers, tasks
  item("/dataspace", "Dataspace", DATASPACE_ROLES, "Exchange"),
  item("/discover", "Discover data", STAFF_ROLES, "Exchange"),
  item("/negotiations", "Negotiations", DATASPACE_ROLES, "Exchange"),
  item("/transfers", "Transfers", DATASPACE_ROLES, "Exchange"),
  item("/tasks", "Tasks", DATASPACE_ROLES, "Exchange"),
  item("/share", "Share data", ASSET_WRITE_ROLES, "Exchange"),
  item("/onboarding", "Participants", ONBOARDING_ROLES, "Exchange"),
  item("/patients", "Patients", PATIENT_LIST_ROLES, "Care"),
  item("/my-record", "My record", PATIENT_ROLES, "Care"),
  item("/devices", "Devices and app", PATIENT_ROLES, "Care"),
  // access body (issue 5)
  item("/access-body", "Access body", HDAB_ROLES, "Govern"),
  item("/access-body/report", "Activity report", HDAB_ROLES, "Govern"),
  item("/applications", "My applications", APPLICANT_ROLES, "Govern"),
  item("/access-body/findings", "Findings", FINDING_RESPONDER_ROLES, "Govern"),
  item("/register", "Permit register", "any", "Govern"),
  item("/information", "Secondary use", "any", "Govern"),
  // trust and governance (issue 4): credentials, policies, audit, trust center, operator console
  item("/trust-center", "Trust center", TRUST_CENTER_ROLES, "Govern"),
  item("/credentials", "Credentials", CREDENTIAL_ROLES, "Govern"),
  item("/policies", "ODRL policies", POLICY_ROLES, "Govern"),
  item("/audit", "Audit trail", AUDIT_ROLES, "Govern"),
  item("/operator", "Operator console", ADMIN_ROLES, "Operate"),
  item("/components", "Components", ADMIN_ROLES, "Operate"),
  item("/tenants", "Tenants", ADMIN_ROLES, "Operate"),
  item("/directory", "Participant directory", ADMIN_ROLES, "Operate"),
];

/** the dataspace views' own navigation, above each page */
export const DATASPACE_NAV: Gated<NavEntry>[] = [
  { item: { to: "/dataspace", label: "Overview" }, roles: DATASPACE_ROLES },
  { item: { to: "/discover", label: "Discover" }, roles: STAFF_ROLES },
  { item: { to: "/negotiate", label: "Negotiate" }, roles: DATASPACE_ROLES },
  { item: { to: "/negotiations", label: "Negotiations" }, roles: DATASPACE_ROLES },
  { item: { to: "/transfers", label: "Transfers" }, roles: DATASPACE_ROLES },
  { item: { to: "/tasks", label: "Tasks" }, roles: DATASPACE_ROLES },
  { item: { to: "/share", label: "Share data" }, roles: ASSET_WRITE_ROLES },
  { item: { to: "/onboarding", label: "Participants" }, roles: STAFF_ROLES },
];

const shownTo = <T>(entries: Gated<T>[], roles: readonly Role[]): T[] =>
  entries.filter((e) => e.roles === "any" || e.roles.some((r) => roles.includes(r))).map((e) => e.item);

export function navFor(roles: readonly Role[]): NavItem[] {
  return shownTo(NAV_ITEMS, roles);
}

export function dataspaceNavFor(roles: readonly Role[]): NavEntry[] {
  return shownTo(DATASPACE_NAV, roles);
}
