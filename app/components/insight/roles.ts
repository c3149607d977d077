import type { Role } from "../../types";

/** who may open each insight view: the same roles as the API routes (server/http/route-table.ts) */
export const ANALYTICS_ROLES: readonly Role[] = [
  "DATA_USER",
  "DATA_HOLDER",
  "HDAB_AUTHORITY",
  "CONNECTOR_ADMIN",
];
export const COHORT_ROLES: readonly Role[] = [
  "DATA_USER",
  "DATA_HOLDER",
  "HDAB_AUTHORITY",
  "CONNECTOR_ADMIN",
  "TRUST_CENTER_OPERATOR",
];
export const QUESTION_ROLES: readonly Role[] = [
  "DATA_USER",
  "DATA_HOLDER",
  "HDAB_AUTHORITY",
  "CONNECTOR_ADMIN",
];
export const EEHRXF_ROLES: readonly Role[] = [
  "DATA_USER",
  "DATA_HOLDER",
  "HDAB_AUTHORITY",
  "CONNECTOR_ADMIN",
  "TRUST_CENTER_OPERATOR",
  "CONNECTOR_USER_PARTICIPANT",
];
