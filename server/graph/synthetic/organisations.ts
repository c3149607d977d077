/**
 * The five organisations of the marketplace, with their dataspace (did:web) identities.
 * The DIDs match the identity provider's persona table (server/auth/personas.ts).
 */

export interface OrganisationRecord {
  slug: string;
  displayName: string;
  role: "DATA_HOLDER" | "DATA_USER" | "HDAB_AUTHORITY";
  ehdsParticipantType: "HEALTH_DATA_HOLDER" | "HEALTH_DATA_USER" | "HEALTH_DATA_ACCESS_BODY";
  did: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
  /** the organisation's dataspace protocol endpoint */
  dspEndpoint: string;
}

// prettier-ignore
export const ORGANISATIONS: readonly OrganisationRecord[] = [
  { slug: "alphaklinik-berlin", displayName: "AlphaKlinik Berlin", role: "DATA_HOLDER", ehdsParticipantType: "HEALTH_DATA_HOLDER", did: "did:web:alpha-klinik.de:participant", country: "DE", dspEndpoint: "https://alpha-klinik.de/api/dsp" },
  { slug: "lmc", displayName: "Limburg Medical Centre", role: "DATA_HOLDER", ehdsParticipantType: "HEALTH_DATA_HOLDER", did: "did:web:lmc.nl:participant", country: "NL", dspEndpoint: "https://lmc.nl/api/dsp" },
  { slug: "pharmaco", displayName: "PharmaCo Research AG", role: "DATA_USER", ehdsParticipantType: "HEALTH_DATA_USER", did: "did:web:pharmaco.de:research", country: "DE", dspEndpoint: "https://pharmaco.de/api/dsp" },
  { slug: "medreg", displayName: "MedReg DE", role: "HDAB_AUTHORITY", ehdsParticipantType: "HEALTH_DATA_ACCESS_BODY", did: "did:web:medreg.de:hdab", country: "DE", dspEndpoint: "https://medreg.de/api/dsp" },
  { slug: "irs", displayName: "Institut de Recherche Santé", role: "DATA_USER", ehdsParticipantType: "HEALTH_DATA_USER", did: "did:web:irs.fr:research", country: "FR", dspEndpoint: "https://irs.fr/api/dsp" },
];

export function organisation(slug: string): OrganisationRecord {
  const org = ORGANISATIONS.find((o) => o.slug === slug);
  if (!org) throw new Error(`unknown organisation ${slug}`);
  return org;
}

export const participantId = (slug: string) => `participant-${slug}`;
