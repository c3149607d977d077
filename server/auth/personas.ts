/**
 * The demonstration personas: one table used by the embedded identity provider (accounts and
 * claims), its sign-in page, and static mode's persona switcher. The password of each persona is
 * its username; the provider says so on its sign-in page and refuses to run in production.
 */

export const ROLES = [
  "DATA_HOLDER",
  "DATA_USER",
  "HDAB_AUTHORITY",
  "CONNECTOR_ADMIN",
  "PATIENT",
  "TRUST_CENTER_OPERATOR",
  "CONNECTOR_USER_PARTICIPANT",
] as const;

export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export type OrganisationRole = "DATA_HOLDER" | "DATA_USER" | "HDAB";

export interface Organisation {
  slug: string;
  displayName: string;
  role: OrganisationRole;
  /** the participant's `did:web` identity in the dataspace */
  did: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
}

/** The five organisations of the synthetic marketplace (Institut de Recherche Santé has no persona). */
export const ORGANISATIONS: readonly Organisation[] = [
  {
    slug: "alphaklinik-berlin",
    displayName: "AlphaKlinik Berlin",
    role: "DATA_HOLDER",
    did: "did:web:alpha-klinik.de:participant",
    country: "DE",
  },
  {
    slug: "lmc",
    displayName: "Limburg Medical Centre",
    role: "DATA_HOLDER",
    did: "did:web:lmc.nl:participant",
    country: "NL",
  },
  {
    slug: "pharmaco",
    displayName: "PharmaCo Research AG",
    role: "DATA_USER",
    did: "did:web:pharmaco.de:research",
    country: "DE",
  },
  {
    slug: "medreg",
    displayName: "MedReg DE",
    role: "HDAB",
    did: "did:web:medreg.de:hdab",
    country: "DE",
  },
  {
    slug: "irs",
    displayName: "Institut de Recherche Santé",
    role: "DATA_USER",
    did: "did:web:irs.fr:research",
    country: "FR",
  },
];

export function findOrganisation(slug: string): Organisation | undefined {
  return ORGANISATIONS.find((o) => o.slug === slug);
}

export interface Persona {
  username: string;
  name: string;
  roles: Role[];
  /** display name of the persona's organisation */
  organisation: string;
  /** set when the organisation is one of ORGANISATIONS */
  organisationSlug?: string;
  participantDid?: string;
  /** set for PATIENT personas: the patient record of the synthetic data they are linked to */
  patientId?: string;
  /** one line: what this persona does in the product */
  description: string;
  email: string;
}

function member(slug: string): Pick<Persona, "organisation" | "organisationSlug" | "participantDid"> {
  const org = findOrganisation(slug);
  if (!org) throw new Error(`unknown organisation ${slug}`);
  return { organisation: org.displayName, organisationSlug: org.slug, participantDid: org.did };
}

export const PERSONAS: Persona[] = [
  {
    username: "admin",
    name: "Jonas Becker",
    roles: ["CONNECTOR_ADMIN"],
    organisation: "Dataspace Operator",
    description: "Operates the dataspace: connectors, participants, policies and the audit trail.",
    email: "jonas.becker@dataspace-operator.example",
  },
  {
    username: "regulator",
    name: "Dr. Katrin Vogel",
    roles: ["HDAB_AUTHORITY"],
    ...member("medreg"),
    description: "Access-body case officer: decides data access applications and issues data permits.",
    email: "katrin.vogel@medreg.example",
  },
  {
    username: "clinic",
    name: "Dr. Anna Weber",
    roles: ["DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"],
    ...member("alphaklinik-berlin"),
    description: "Data steward of a hospital: publishes datasets and answers contract negotiations.",
    email: "anna.weber@alpha-klinik.example",
  },
  {
    username: "lmc",
    name: "Dr. Pieter de Vries",
    roles: ["DATA_HOLDER", "CONNECTOR_USER_PARTICIPANT"],
    ...member("lmc"),
    description: "Data steward of a Dutch medical centre: shares cohorts across the border.",
    email: "pieter.devries@lmc.example",
  },
  {
    username: "researcher",
    name: "Dr. Lukas Schmidt",
    roles: ["DATA_USER", "CONNECTOR_USER_PARTICIPANT"],
    ...member("pharmaco"),
    description: "Researcher: searches the catalogue, negotiates contracts and runs analyses.",
    email: "lukas.schmidt@pharmaco.example",
  },
  {
    username: "trustcenter",
    name: "Sabine Hoffmann",
    roles: ["TRUST_CENTER_OPERATOR"],
    organisation: "Trust Center DE",
    description: "Trust-center operator: resolves pseudonyms and supervises secure processing sessions.",
    email: "sabine.hoffmann@trustcenter.example",
  },
  {
    username: "patient1",
    name: "Maria Schneider",
    roles: ["PATIENT"],
    organisation: "Private individual",
    patientId: "patient-000001",
    description: "Patient: views her health record and manages consent to secondary use.",
    email: "maria.schneider@patient.example",
  },
  {
    username: "patient2",
    name: "Thomas Müller",
    roles: ["PATIENT"],
    organisation: "Private individual",
    patientId: "patient-000002",
    description: "Patient: views his health record and manages consent to secondary use.",
    email: "thomas.mueller@patient.example",
  },
];

export function findPersona(username: string): Persona | undefined {
  return PERSONAS.find((p) => p.username === username);
}
