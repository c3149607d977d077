import { PERSONAS, type Persona } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import type { GraphNode } from "../graph";
import type { PidIdentity } from "./pid";

/** The persona linked to a patient record, when there is one (patient1, patient2). */
export function findPersonaByPatient(patientId: string): Persona | undefined {
  return PERSONAS.find((p) => p.patientId === patientId);
}

/**
 * The session user of a wallet sign-in: a PATIENT linked to the matched record. A persona's username
 * is kept (so their consents and devices are the same whichever way they sign in); any other patient
 * signs in under their record id.
 */
export function walletUser(patient: GraphNode, pid: PidIdentity, persona: Persona | undefined): SessionUser {
  return {
    sub: `eudi:${patient.id}`,
    username: persona?.username ?? patient.id,
    name: `${pid.givenName} ${pid.familyName}`,
    email: persona?.email,
    roles: ["PATIENT"],
    organisation: "Private individual",
    patientId: patient.id,
  };
}
