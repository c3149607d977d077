/**
 * Node ids of the patient-level layers and of the ontology. Patient-level ids carry the
 * 6-digit patient number, so they sort and group by patient: `condition-000042-03`.
 */

const pad = (n: number, width: number) => String(n).padStart(width, "0");
const scoped = (prefix: string) => (patient: number, seq: number) =>
  `${prefix}-${pad(patient, 6)}-${pad(seq, 2)}`;

export const ids = {
  patient: (patient: number) => `patient-${pad(patient, 6)}`,
  encounter: scoped("encounter"),
  condition: scoped("condition"),
  observation: scoped("observation"),
  medicationRequest: scoped("medication-request"),
  omopPerson: (patient: number) => `omop-person-${pad(patient, 6)}`,
  conditionOccurrence: scoped("condition-occurrence"),
  drugExposure: scoped("drug-exposure"),
  measurement: scoped("measurement"),
  snomed: (code: string) => `snomed-${code}`,
  icd10: (code: string) => `icd10-${code}`,
  rxnorm: (code: string) => `rxnorm-${code}`,
  loinc: (code: string) => `loinc-${code}`,
};

/** OMOP row ids: unique integers derived from the patient number and the row's sequence */
export function omopRowId(patient: number, seq: number): number {
  return patient * 100 + seq;
}
