/**
 * Node ids of the patient-level layers and of the ontology. Patient-level ids carry the
 * zero-padded patient number (server/privacy/ids.ts reads it back), so they sort and group by
 * patient: `condition-000042-03`.
 */
import { pad6, patientIdOf } from "../../privacy/ids";

const scoped = (prefix: string) => (patient: number, seq: number) =>
  `${prefix}-${pad6(patient)}-${String(seq).padStart(2, "0")}`;

export const ids = {
  patient: patientIdOf,
  encounter: scoped("encounter"),
  condition: scoped("condition"),
  observation: scoped("observation"),
  medicationRequest: scoped("medication-request"),
  omopPerson: (patient: number) => `omop-person-${pad6(patient)}`,
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
