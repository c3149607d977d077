import { words } from "./labels";

/**
 * The audit trail's actions and kinds in words, apart from the label catalogue (labels.ts) so that only
 * the pages that show audit entries load this table (tests/e2e/shipped-code.spec.ts: a page's own
 * scripts within 40,000 bytes).
 */

/**
 * Every action the audit trail records (`AuditEntry.action`, "dataRequest.seed", "transfer.start"),
 * in words: one entry per action the code writes (app/lib/audit-labels.test.ts reads the code for
 * them and fails on one without an entry, or on an entry no code writes). The access body's record
 * changes are `<record kind>.<event>` (server/access-body/store.ts), its seed `<record kind>.seed`.
 */
export const AUDIT_ACTIONS: Record<string, string> = {
  // the access body's records: applications and their decision clock
  "application.submit": "Application submitted",
  "application.markComplete": "Application found complete",
  "application.markIncomplete": "Application found incomplete",
  "application.supplement": "Application supplemented",
  "application.requestInformation": "Information requested from the applicant",
  "application.informationProvided": "Applicant provided the information",
  "application.informationWithdrawn": "Information request withdrawn from the application",
  "application.grant": "Application granted",
  "application.refuse": "Application refused",
  "application.withdraw": "Application withdrawn",
  "application.clock.pause": "Decision clock paused",
  "application.clock.resume": "Decision clock resumed",
  "application.clock.extend": "Decision period extended",
  "application.seed": "Demonstration application recorded",
  // data requests (Art. 69)
  "dataRequest.submit": "Data request submitted",
  "dataRequest.approve": "Data request approved",
  "dataRequest.refuse": "Data request refused",
  "dataRequest.answer": "Data request answered",
  "dataRequest.withdraw": "Data request withdrawn",
  "dataRequest.seed": "Demonstration data request recorded",
  // data permits (Art. 68)
  "permit.issue": "Data permit issued",
  "permit.revoke": "Data permit revoked",
  "permit.expire": "Data permit expired",
  "permit.seed": "Demonstration data permit recorded",
  "access-body.permit.issue": "Data permit written to the knowledge graph",
  "access-body.permit.revoke": "Data permit revocation written to the knowledge graph",
  // information requests to applicants
  "informationRequest.open": "Information request opened",
  "informationRequest.answer": "Information request answered",
  "informationRequest.withdraw": "Information request withdrawn",
  "informationRequest.seed": "Demonstration information request recorded",
  // supervision findings
  "finding.open": "Supervision finding opened",
  "finding.respond": "Supervision finding answered",
  "finding.close": "Supervision finding closed",
  "finding.seed": "Demonstration supervision finding recorded",
  // results of secondary use (Art. 61(4))
  "result.declare": "Result declared",
  "result.release": "Result released after the output check",
  "result.reject": "Result rejected at the output check",
  "result.resubmit": "Result resubmitted",
  "result.publish": "Result published",
  "result.seed": "Demonstration result recorded",
  // the dataspace
  "asset.create": "Asset registered",
  "asset.offer": "Asset offered",
  "asset.offer.withdraw": "Asset offer withdrawn",
  "negotiation.start": "Contract negotiation started",
  "negotiation.terminate": "Contract negotiation terminated",
  "transfer.start": "Data transfer started",
  "transfer.pull": "Data pulled under a data permit",
  "transfer.terminate": "Data transfer terminated",
  "graph-bridge.read": "Asset data served to a connector",
  "participant.create": "Participant onboarded",
  "participant.update": "Participant changed",
  "credential.request": "Credential requested",
  "credential.revoke": "Credential revoked",
  "directory.add": "Participant added to the directory",
  "directory.remove": "Participant removed from the directory",
  "policy.create": "Policy created",
  "policy.update": "Policy changed",
  "policy.delete": "Policy deleted",
  // the catalogue, patients' records and consents
  "catalogue.create": "Dataset published",
  "catalogue.delete": "Dataset withdrawn from the catalogue",
  "patient.list.read": "Patient list read",
  "patient.list.page.read": "Patient list viewed",
  "patient.page.read": "Patient record viewed",
  "patient.profile.read": "Patient record read",
  "patient.insights.read": "Patient's insights read",
  "patient.research.read": "Patient's research programmes read",
  "graph.node.read": "Patient record read in the graph explorer",
  "graph.read": "Patient record shown in a graph sample",
  "graph.expand.read": "Patient record shown in a graph neighbourhood",
  "consent.grant": "Research consent given",
  "consent.revoke": "Research consent withdrawn",
  // the patient's companion app
  "app-pairing.create": "Companion app pairing code issued",
  "app-device.pair": "Companion app paired",
  "app-device.revoke": "Companion app unpaired",
  "app-account.create": "Companion app account created",
  "patient-app.record.read": "Record read in the companion app",
  "patient-app.observations.read": "Measurements read in the companion app",
  "patient-app.observation.add": "Measurement added in the companion app",
  "patient-app.observation.erase": "Companion app measurements erased",
  "patient-app.account.erase": "Companion app account erased",
  "patient-app.ehr-sync": "Health record synchronised to the companion app",
  // sign-in with an EUDI wallet
  "eudi.start": "Wallet sign-in started",
  "eudi.presentation": "Wallet presentation checked",
  "eudi.signin": "Signed in with a wallet",
  // questions and federated queries
  "nlq.ask": "Question asked",
  "federated.query": "Federated cohort query",
  // operations and the audit trail itself
  "component.restart": "Component restarted",
  "request.refused": "Request refused",
  "audit.export": "Audit trail exported",
  "audit.purge": "Audit entries purged",
  "audit.retention.set": "Retention period set",
};

/** an audit entry's action in words ("dataRequest.seed" → "Demonstration data request recorded") */
export function auditActionLabel(action: string): string {
  return AUDIT_ACTIONS[action] ?? words(action.replace(/\./g, " "));
}

/** what audit entries are about (their `kind`, server/audit/retention.ts), where it reads otherwise than its words */
const AUDIT_KINDS: Record<string, string> = {
  access: "Refused requests",
  eudi: "EUDI wallet",
  federated: "Federated queries",
  graph: "Knowledge graph",
  insight: "Insights",
  nlq: "Questions",
  "patient-app": "Companion app",
};

/** what an audit entry is about (its `kind`, "access-body", "nlq") in words: "Access body", "Questions" */
export function auditKindLabel(kind: string): string {
  return AUDIT_KINDS[kind] ?? words(kind);
}
