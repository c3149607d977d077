import { PERSONAS } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import type { GraphNode } from "../graph";
import type { PidIdentity } from "./pid";

/**
 * The session user of a wallet sign-in: a PATIENT linked to the matched record. A persona's username
 * (patient1, patient2) is kept (so their consents and devices are the same whichever way they sign in);
 * any other patient signs in under their record id.
 */
export function walletUser(patient: GraphNode, pid: PidIdentity): SessionUser {
  const persona = PERSONAS.find((p) => p.patientId === patient.id);
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
