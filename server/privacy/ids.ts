/**
 * Which stored ids are a person's: the id rules privacy's redaction works by, in a leaf module that
 * imports nothing, so a capability privacy itself reads (federated) can use them without a cycle.
 */

/**
 * the id prefixes of person-level nodes; the number after them is the patient number, zero-padded
 * to 6 digits (`pad6`), so one of a million and more has 7 or more digits
 */
const PREFIXES = [
  "condition-occurrence",
  "medication-request",
  "drug-exposure",
  "omop-person",
  "observation",
  "measurement",
  "encounter",
  "condition",
  "patient",
].join("|");
/** a person-level id as stored: `encounter-000042-03` */
export const REAL_ID = new RegExp(`^(${PREFIXES})-(\\d{6,})((?:-\\d+)*)$`);
/** the same, anywhere in a string (edge ids, references) */
export const REAL_ID_IN_TEXT = new RegExp(`\\b(${PREFIXES})-(\\d{6,})`, "g");
/** a pseudonymised id: `encounter-x3k9q2m7d4fa-03` */
export const PSEUDO_ID = new RegExp(`^(${PREFIXES})-x([a-z2-7]{12})((?:-\\d+)*)$`);

export const pad6 = (n: number) => String(n).padStart(6, "0");
export const patientIdOf = (n: number) => `patient-${pad6(n)}`;

/** the patient number in a stored person-level id (`patient-000042` → 42) */
export function patientNumberOfId(id: string): number | undefined {
  const m = REAL_ID.exec(id);
  return m ? Number(m[2]) : undefined;
}

/** the patient a stored id of a person-level node belongs to (`encounter-000004-01`: patient-000004) */
export function patientOfId(id: string): string | undefined {
  const n = patientNumberOfId(id);
  return n === undefined ? undefined : patientIdOf(n);
}
