import type { Role } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { organisationSlugOf } from "../auth/user";
import { isSupervisory } from "../federated";

/**
 * Data minimisation by role: the one table that says what a caller may see of the people in the
 * data (README, "What each role sees"; docs/decisions/0006-data-minimisation-by-role.md).
 *
 * Direct identifiers (names, birth date beyond the year, address, telecom, city, FHIR resource
 * ids, the record holder's patient number) go only to the patient themself, the data holder that
 * holds the record and the operator. Everyone else — data users, the access body, the trust
 * center — reads pseudonymised records: a stable keyed pseudonym instead of the record's ids,
 * birth year only, no name, address, telecom or city (EHDS Regulation (EU) 2025/327 Art. 66(1)-(3):
 * data limited to what the purpose needs, anonymised or else pseudonymised, the key to reverse the
 * pseudonyms kept by the access body or a trusted third party; Art. 61(3): data users shall not
 * re-identify; Art. 3: patients access their own data).
 *
 * Services that read data apply it through `viewerOf(user)`; routes and views only pass the
 * caller on.
 */

/** whose identities a role may read: every record, the records its organisation holds, its own, none */
export type IdentityScope = "all" | "held" | "own" | "none";

/** whose identities each role may read (README, "What each role sees") */
export const ROLE_POLICY: Record<Role, IdentityScope> = {
  CONNECTOR_ADMIN: "all", // the operator
  DATA_HOLDER: "held", // every other record pseudonymised
  PATIENT: "own", // no one else's
  DATA_USER: "none", // pseudonymised records and aggregates (k-anonymous)
  HDAB_AUTHORITY: "none", // pseudonymised records and aggregates
  TRUST_CENTER_OPERATOR: "none", // pseudonyms and aggregates
  CONNECTOR_USER_PARTICIPANT: "none", // pseudonymised records and aggregates
};

/** Labels whose nodes describe one person (FHIR l3, OMOP l4): minimised for callers without identities. */
export const PERSON_LABELS: readonly string[] = [
  "Patient",
  "Encounter",
  "Condition",
  "Observation",
  "MedicationRequest",
  "Consent",
  "OMOPPerson",
  "ConditionOccurrence",
  "DrugExposure",
  "Measurement",
];

/** Properties that are direct identifiers: removed from person nodes for callers without identities. */
export const DIRECT_IDENTIFIER_KEYS: readonly string[] = [
  "name",
  "givenName",
  "familyName",
  "birthDate",
  "address",
  "telecom",
  "phone",
  "email",
  "city",
  "postalCode",
  "resourceId",
  "identifier",
  "personSourceValue",
  "monthOfBirth",
  "dayOfBirth",
  "grantedBy",
  "revokedBy",
  // self-measured data (companion app): who entered it, the app account and device, free-text notes
  "enteredBy",
  "appAccountId",
  "deviceName",
  "note",
];

/**
 * Properties whose numbers encode the record holder's patient number (OMOP person_id and the row
 * ids derived from it): replaced by the pseudonym (personId) or removed.
 */
export const PATIENT_NUMBER_KEYS: readonly string[] = [
  "personId",
  "conditionOccurrenceId",
  "drugExposureId",
  "measurementId",
  "visitOccurrenceId",
];

/** The caller as the services see it: whose identities it may read. Small, and stable per class. */
export interface Viewer {
  /** "all", or the identities it may read ("held" by an organisation, "own" record), or none */
  identities: IdentityScope;
  /** the holder slug whose records it reads with identities (DATA_HOLDER) */
  holder?: string;
  /** the patient record it reads with identities (PATIENT) */
  patientId?: string;
  /** exact counts besides (the access body, server/federated/scope.ts): the catalogue's recordCount */
  exactCounts?: true;
  /** the visibility class, for caches: a handful of values, not one per user */
  key: string;
}

const RANK: Record<IdentityScope, number> = { none: 0, own: 1, held: 2, all: 3 };

/** the viewer of a signed-in user: the widest identity scope among its roles; no user sees none */
export function viewerOf(
  user:
    | (Pick<SessionUser, "roles"> &
        Partial<Pick<SessionUser, "organisation" | "participantDid" | "patientId">>)
    | null
    | undefined,
): Viewer {
  if (!user) return PSEUDONYMISED;
  let scope: IdentityScope = "none";
  for (const role of user.roles) {
    const s = ROLE_POLICY[role] ?? "none";
    if (RANK[s] > RANK[scope]) scope = s;
  }
  if (scope === "all") return IDENTIFIED;
  const holder = user.roles.some((r) => ROLE_POLICY[r] === "held")
    ? organisationSlugOf({ organisation: user.organisation ?? "", participantDid: user.participantDid })
    : undefined;
  const patientId = user.roles.includes("PATIENT") ? user.patientId : undefined;
  if (!holder && !patientId) return isSupervisory(user) ? SUPERVISORY : PSEUDONYMISED;
  const exact = isSupervisory(user);
  const parts = [holder ? `held:${holder}` : "", patientId ? `own:${patientId}` : "", exact ? "counts" : ""];
  return {
    identities: holder ? "held" : "own",
    ...(holder ? { holder } : {}),
    ...(patientId ? { patientId } : {}),
    ...(exact ? { exactCounts: true as const } : {}),
    key: parts.filter(Boolean).join("+"),
  };
}

export const IDENTIFIED: Viewer = Object.freeze({ identities: "all", key: "all" });
const SUPERVISORY: Viewer = Object.freeze({ identities: "none", exactCounts: true, key: "none+counts" });
export const PSEUDONYMISED: Viewer = Object.freeze({ identities: "none", key: "none" });

/**
 * Whether the viewer is shown a dataset's recordCount as stored: the exempt roles of
 * server/federated/scope.ts and the dataset's holder. Anyone else is shown it only when it is not
 * `withheld` (the catalogue: counts from 1 to k−1 and counts that would pin a suppressed cell; the
 * graph withholds "all": its dataset nodes are no place to read counts; decision 0093).
 */
export function seesCount(
  viewer: Viewer,
  dataset: { id: string; holder?: unknown },
  withheld: readonly string[] | "all",
) {
  return (
    viewer.identities === "all" ||
    !!viewer.exactCounts ||
    (!!viewer.holder && viewer.holder === dataset.holder) ||
    (withheld !== "all" && !withheld.includes(dataset.id))
  );
}

/** whether the viewer reads the identities of a record held by `holder` and linked to `patientId` */
export function seesIdentity(viewer: Viewer, record: { holder?: string; patientId?: string }): boolean {
  if (viewer.identities === "all") return true;
  if (viewer.holder && record.holder === viewer.holder) return true;
  if (viewer.patientId && record.patientId === viewer.patientId) return true;
  return false;
}
