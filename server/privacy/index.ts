/**
 * The privacy capability's public entry (docs/decisions/0015): who sees which identities
 * (the role policy and the viewer), the minimiser of graph answers and of tables. Modules read
 * by the container only (the audit view, the pseudonym secret) are imported there directly.
 */
export { DIRECT_IDENTIFIER_KEYS, seesCount, seesIdentity, viewerOf, type Viewer } from "./policy";
export { createMinimiser } from "./directory";
export { minimiseTable } from "./rows";
export { patientsShown } from "./redact";
export { patientOfId } from "./ids";
