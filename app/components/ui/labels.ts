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

/** "awaitingPermit" / "AWAITING_PERMIT" / "data-holder" → "Awaiting permit" (`separators` read as a space) */
export function words(value: string, separators = /[_-]+/g): string {
  const spaced = value
    .replace(separators, " ")
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
  return PURPOSES.find((p) => p.code === purposeCode(value))?.label ?? words(value);
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

/** a layer as it reads on screen: "L4 · OMOP CDM v5.4" (never "l4") */
export function layerLabel(layer: string): string {
  return LAYER_TITLES[layer] ? `${layer.toUpperCase()} · ${LAYER_TITLES[layer]}` : words(layer);
}

/** what a layer holds, without its short name: "OMOP CDM v5.4" */
export function layerTitle(layer: string): string {
  return LAYER_TITLES[layer] ?? words(layer);
}

/** several layers by short name: "L1, L2, L4, L5" */
export function layersShort(layers: readonly string[]): string {
  return layers.map((l) => (LAYER_TITLES[l] ? l.toUpperCase() : words(l))).join(", ");
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
