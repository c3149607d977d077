/**
 * The label catalogue: how every enumerated value the back end sends (roles, purposes, states of
 * contracts, approvals, negotiations, transfers, sessions, consents, layers) reads on screen. One
 * place, used by every view, so no view shows `awaitingPermit` or `HDAB_AUTHORITY`. A value the
 * catalogue does not know is turned into words (`someNewState` → "Some new state"), never shown raw.
 * Shared by server and browser code; it imports nothing from server/ (views reach server/ for types
 * only, app/types.ts).
 */

/** the purposes of secondary use, EHDS Art. 53(1)(a)–(f), as server/access-body/periods.ts names them */
const PURPOSES: { code: string; point: string; label: string }[] = [
  { code: "publicHealth", point: "Art. 53(1)(a)", label: "Public interest in public or occupational health" },
  { code: "policyMaking", point: "Art. 53(1)(b)", label: "Policymaking and regulatory activities" },
  { code: "officialStatistics", point: "Art. 53(1)(c)", label: "Statistics" },
  { code: "education", point: "Art. 53(1)(d)", label: "Education and teaching" },
  { code: "scientificResearch", point: "Art. 53(1)(e)", label: "Scientific research" },
  { code: "improvementOfCare", point: "Art. 53(1)(f)", label: "Improvement of the delivery of care" },
];
/** ODRL purpose values of the marketplace that stand for an Art. 53(1) purpose */
const PURPOSE_ALIASES: Record<string, string> = {
  healthCareAndMedicinalProductSafety: "publicHealth",
  RESEARCH: "scientificResearch",
};
const purposeCode = (value: string) => PURPOSE_ALIASES[value] ?? value;

/**
 * The roles of the identity provider and the marketplace, where people call them otherwise than
 * their words (`DATA_HOLDER` reads "Data holder" without an entry).
 */
export const ROLE_LABELS: Record<string, string> = {
  CONNECTOR_ADMIN: "Dataspace operator",
  HDAB_AUTHORITY: "Health data access body",
  CONNECTOR_USER_PARTICIPANT: "Dataspace participant",
  HDAB: "Health data access body",
};

/**
 * States and statuses of every record kind (contracts, HDAB approvals, permits, applications,
 * negotiations, transfers, participants, sessions, consents, tasks, findings, results), where they
 * read otherwise than their words (`UNDER_ASSESSMENT` reads "Under assessment" without an entry). The
 * same word means the same thing everywhere, so one table serves all of them.
 */
export const STATE_LABELS: Record<string, string> = {
  AWAITING_INFORMATION: "Waiting for information",
  // British spelling, as every view writes it
  FINALIZING: "Finalising",
  FINALIZED: "Finalised",
  ok: "OK",
};

/** the five layers of the knowledge graph: what each holds */
export const LAYER_TITLES: Record<string, string> = {
  l1: "Marketplace",
  l2: "HealthDCAT-AP catalogue",
  l3: "FHIR R4 clinical records",
  l4: "OMOP CDM v5.4",
  l5: "Ontology and terminologies",
};
/** a layer as it reads on screen: "L4 · OMOP CDM v5.4" (never "l4") */
export const LAYER_LABELS: Record<string, string> = Object.fromEntries(
  Object.entries(LAYER_TITLES).map(([l, title]) => [l, `${l.toUpperCase()} · ${title}`]),
);

/** "awaitingPermit" / "AWAITING_PERMIT" / "data-holder" → "Awaiting permit" */
export function words(value: string): string {
  const spaced = value
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

export function roleLabel(role: string): string {
  return ROLE_LABELS[role] ?? words(role);
}

export function rolesLabel(roles: readonly string[]): string {
  return roles.map(roleLabel).join(" · ");
}

/** who did something, as a record's history stores it ("seed (DATA_USER)", "regulator (HDAB_AUTHORITY)") */
const ACTOR_NAMES: Record<string, string> = { seed: "Demonstration data", system: "The hub" };

export function actorLabel(actor: string | null | undefined): string {
  if (!actor) return "";
  const m = /^(.+?) \(([A-Za-z_]+)\)$/.exec(actor);
  const [who, role] = m ? [m[1], m[2]] : [actor, null];
  const name = ACTOR_NAMES[who] ?? who;
  return role && role !== "system" && role !== "unknown" ? `${name} · ${roleLabel(role)}` : name;
}

export function stateLabel(state: string | null | undefined): string {
  if (!state) return "";
  return STATE_LABELS[state] ?? words(state);
}

/** a purpose of secondary use (Art. 53(1)), from its access-body code or its ODRL purpose value */
export function purposeLabel(value: string | null | undefined): string {
  if (!value) return "";
  const code = purposeCode(value);
  const p = code ? PURPOSES.find((x) => x.code === code) : undefined;
  if (p) return p.label;
  return words(value);
}

/**
 * An ODRL action of a policy's prohibition or obligation ("ehds:reIdentify", "odrl:anonymize") as a
 * person reads it: "re-identifying people", "anonymise".
 */
const ODRL_ACTIONS: Record<string, string> = {
  reIdentify: "re-identifying people",
  anonymize: "anonymise",
};

export function odrlActionLabel(action: string): string {
  const bare = action.replace(/^[a-z]+:/, "");
  return ODRL_ACTIONS[bare] ?? words(bare).toLowerCase();
}

/** a transfer's type as the connector names it ("HttpData-PULL") in words: "HTTP pull" */
export function transferTypeLabel(type: string | null | undefined): string {
  if (!type) return "";
  const m = /^HttpData-(PULL|PUSH)$/i.exec(type);
  return m ? `HTTP ${m[1].toLowerCase()}` : words(type);
}

/** the claims of a verifiable credential whose names are not words ("ehdsParticipantType") */
const CLAIM_NAMES: Record<string, string> = { ehdsParticipantType: "EHDS participant type" };

/** one claim of a credential: "EHDS participant type: Data holder" (never "ehdsParticipantType: DATA_HOLDER") */
export function claimLabel(name: string, value: unknown): string {
  const shown =
    typeof value === "string"
      ? /^[A-Z][A-Z_]+$/.test(value)
        ? roleLabel(value)
        : value
      : JSON.stringify(value);
  return `${CLAIM_NAMES[name] ?? words(name)}: ${shown}`;
}

export function layerLabel(layer: string): string {
  return LAYER_LABELS[layer] ?? words(layer);
}

/** what a layer holds, without its short name: "OMOP CDM v5.4" */
export function layerTitle(layer: string): string {
  return LAYER_TITLES[layer] ?? words(layer);
}

/** the short name of a layer: "L4" */
export function layerShort(layer: string): string {
  return LAYER_TITLES[layer] ? layer.toUpperCase() : words(layer);
}

/** several layers by short name: "L1, L2, L4, L5" */
export function layersShort(layers: readonly string[]): string {
  return layers.map(layerShort).join(", ");
}

/**
 * A sentence from the back end that names layers by their ids ("40 marketplace (l1) nodes") reads with
 * their short names ("40 marketplace (L1) nodes"), as every view names them.
 */
export function withLayerNames(text: string): string {
  return text.replace(/\bl([1-5])\b/g, "L$1");
}

/**
 * A sentence from the back end that names purposes of secondary use by their codes ("purpose-bound:
 * scientificResearch, healthCareAndMedicinalProductSafety") reads with their names, as every view
 * names them.
 */
export function withPurposeNames(text: string): string {
  return text.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (w) =>
    PURPOSES.some((p) => p.code === purposeCode(w)) ? purposeLabel(w) : w,
  );
}

/** true when a text shows a raw identifier: camelCase, UPPER_SNAKE_CASE or a known enum value */
export function looksRaw(text: string): boolean {
  return /\b[a-z]+[A-Z][a-zA-Z]*\b/.test(text) || /\b[A-Z]{2,}_[A-Z_]+\b/.test(text);
}

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
  "negotiation.start": "Contract negotiation started",
  "negotiation.terminate": "Contract negotiation terminated",
  "transfer.start": "Data transfer started",
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
  "consent.grant": "Research consent given",
  "consent.revoke": "Research consent withdrawn",
  // the patient's companion app
  "app-pairing.create": "Companion app pairing code issued",
  "app-device.pair": "Companion app paired",
  "app-device.revoke": "Companion app unpaired",
  "app-account.create": "Companion app account created",
  "patient-app.record.read": "Record read in the companion app",
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
