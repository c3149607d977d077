import type { GraphNode, GraphStore } from "../graph";
import { PresentationError } from "./sd-jwt";
import { isCivilDate } from "../http/contract-fields";

/**
 * The EU person identification data (PID) this hub asks for, and how a presented PID is matched to
 * a patient record. The PID Rulebook names the attributes given_name, family_name and birth_date;
 * in the SD-JWT VC encoding (vct urn:eudi:pid:1) birth_date is the claim `birthdate`.
 */

export const PID_VCTS = ["urn:eudi:pid:1", "urn:eu.europa.ec.eudi:pid:1"] as const;
export const PID_QUERY_ID = "pid";
export const PID_CLAIMS = ["given_name", "family_name", "birthdate"] as const;

/** The DCQL query (OpenID4VP 1.0, section 6) of a wallet sign-in. */
export const PID_DCQL_QUERY = {
  credentials: [
    {
      id: PID_QUERY_ID,
      format: "dc+sd-jwt",
      meta: { vct_values: [...PID_VCTS] },
      claims: PID_CLAIMS.map((name) => ({ id: name, path: [name] })),
    },
  ],
} as const;

export const PID_PURPOSE =
  "Sign in to the Health Dataspace Hub: your name and date of birth are matched to your patient record";

export interface PidIdentity {
  givenName: string;
  familyName: string;
  /** YYYY-MM-DD */
  birthDate: string;
}

export function pidFromClaims(claims: Record<string, unknown>): PidIdentity {
  const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const givenName = text(claims.given_name);
  const familyName = text(claims.family_name);
  const birthDate = text(claims.birthdate) ?? text(claims.birth_date);
  const missing = [
    !givenName && "given_name",
    !familyName && "family_name",
    !birthDate && "birthdate",
  ].filter(Boolean);
  if (missing.length)
    throw new PresentationError("missing_claims", `The wallet did not disclose ${missing.join(", ")}`);
  if (!isCivilDate(birthDate!))
    throw new PresentationError(
      "invalid_claims",
      "The presented birth date is not a date that exists (YYYY-MM-DD)",
    );
  return { givenName: givenName!, familyName: familyName!, birthDate: birthDate! };
}

/** Case-, whitespace- and Unicode-normalisation-insensitive comparison of names ("MÜLLER" = "Müller"). */
export function sameName(a: string, b: string): boolean {
  const norm = (s: string) => s.normalize("NFC").trim().replace(/\s+/g, " ").toLocaleLowerCase("de");
  return norm(a) === norm(b);
}

export type PatientMatch =
  { kind: "match"; patient: GraphNode } | { kind: "none" } | { kind: "ambiguous"; count: number };

/**
 * Finds the one patient record whose family name, given name and birth date equal the PID's.
 * No match and more than one match are both refusals; nobody is ever mapped to a default patient.
 */
export async function matchPatient(graph: GraphStore, pid: PidIdentity): Promise<PatientMatch> {
  const candidates = await graph.findNodes({
    label: "Patient",
    where: { birthDate: pid.birthDate },
    limit: 1000,
  });
  const hits = candidates.filter((n) => {
    const p = n.properties;
    return (
      typeof p.familyName === "string" &&
      typeof p.givenName === "string" &&
      sameName(p.familyName, pid.familyName) &&
      sameName(p.givenName, pid.givenName)
    );
  });
  if (hits.length === 1) return { kind: "match", patient: hits[0] };
  if (hits.length === 0) return { kind: "none" };
  return { kind: "ambiguous", count: hits.length };
}
