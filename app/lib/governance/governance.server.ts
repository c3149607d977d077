/** Server-only helpers the governance views' loaders and actions use (kept out of the browser bundle). */
export { auditFilterFromUrl, chainReport, exportTarget } from "../../../server/audit/handlers";
export { parseRetentionInput, RETENTION_MAX_DAYS } from "../../../server/audit/retention";
export { parseDirectoryInput } from "../../../server/operator/directory";
