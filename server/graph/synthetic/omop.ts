/**
 * Layer l4: the patient's OMOP CDM v5.4 rows (person, condition_occurrence, drug_exposure,
 * measurement), written from the same clinical timeline as the FHIR resources, each linked to
 * its FHIR resource by MAPPED_TO. Encounters become visit_occurrence_id values.
 */
import { type ClinicalTimeline } from "./clinical";
import { ids, omopRowId } from "./ids";
import { type PatientProfile } from "./population";
import { isoDate, isoDateTime } from "./prng";
import { type RecordBuffer } from "./records";
import { condition, drug, measurement } from "./terminology";

/** OMOP standard concepts of the CDM's own vocabularies */
const OMOP_CONCEPTS = {
  male: 8507,
  female: 8532,
  /** Type Concept "EHR" */
  ehr: 32817,
  /** Type Concept "EHR prescription" */
  ehrPrescription: 32838,
  noMatchingConcept: 0,
} as const;

export function writeOmop(out: RecordBuffer, profile: PatientProfile, timeline: ClinicalTimeline): void {
  const p = profile.index;
  const birth = isoDate(profile.birthDay);
  const person = out.node("OMOPPerson", ids.omopPerson(p), {
    personId: p,
    genderConceptId: profile.gender === "male" ? OMOP_CONCEPTS.male : OMOP_CONCEPTS.female,
    genderSourceValue: profile.gender,
    yearOfBirth: Number(birth.slice(0, 4)),
    monthOfBirth: Number(birth.slice(5, 7)),
    dayOfBirth: Number(birth.slice(8, 10)),
    raceConceptId: OMOP_CONCEPTS.noMatchingConcept,
    ethnicityConceptId: OMOP_CONCEPTS.noMatchingConcept,
    personSourceValue: profile.resourceId,
    careSiteSourceValue: profile.holder,
  });
  out.edge(profile.id, "MAPPED_TO", person);

  for (const c of timeline.conditions) {
    const term = condition(c.snomed);
    const id = out.node("ConditionOccurrence", ids.conditionOccurrence(p, c.seq), {
      conditionOccurrenceId: omopRowId(p, c.seq),
      personId: p,
      conditionConceptId: term.omopConceptId ?? OMOP_CONCEPTS.noMatchingConcept,
      conditionStartDate: isoDate(c.onsetDay),
      conditionEndDate: c.abatementDay === null ? null : isoDate(c.abatementDay),
      conditionTypeConceptId: OMOP_CONCEPTS.ehr,
      visitOccurrenceId: omopRowId(p, c.encounter.seq),
      conditionSourceValue: term.snomed,
    });
    out.edge(person, "HAS_CONDITION_OCCURRENCE", id);
    out.edge(ids.condition(p, c.seq), "MAPPED_TO", id);
    out.edge(id, "CODED_BY", ids.snomed(term.snomed));
  }

  for (const m of timeline.medications) {
    const term = drug(m.rxnorm);
    const id = out.node("DrugExposure", ids.drugExposure(p, m.seq), {
      drugExposureId: omopRowId(p, m.seq),
      personId: p,
      drugConceptId: term.omopConceptId ?? OMOP_CONCEPTS.noMatchingConcept,
      drugExposureStartDate: isoDate(m.startDay),
      drugExposureEndDate: isoDate(m.endDay),
      drugTypeConceptId: OMOP_CONCEPTS.ehrPrescription,
      daysSupply: term.daysSupply,
      sig: term.dosage,
      visitOccurrenceId: omopRowId(p, m.encounter.seq),
      drugSourceValue: term.rxnorm,
    });
    out.edge(person, "HAS_DRUG_EXPOSURE", id);
    out.edge(ids.medicationRequest(p, m.seq), "MAPPED_TO", id);
    out.edge(id, "CODED_BY", ids.rxnorm(term.rxnorm));
  }

  for (const o of timeline.observations) {
    const term = measurement(o.loinc);
    const id = out.node("Measurement", ids.measurement(p, o.seq), {
      measurementId: omopRowId(p, o.seq),
      personId: p,
      measurementConceptId: term.omopConceptId ?? OMOP_CONCEPTS.noMatchingConcept,
      measurementDate: isoDate(o.encounter.day),
      measurementDatetime: isoDateTime(o.encounter.day, o.encounter.startMinute),
      measurementTypeConceptId: OMOP_CONCEPTS.ehr,
      valueAsNumber: o.value,
      unitSourceValue: term.unit,
      rangeLow: term.referenceLow,
      rangeHigh: term.referenceHigh,
      visitOccurrenceId: omopRowId(p, o.encounter.seq),
      measurementSourceValue: term.loinc,
    });
    out.edge(person, "HAS_MEASUREMENT", id);
    out.edge(ids.observation(p, o.seq), "MAPPED_TO", id);
    out.edge(id, "CODED_BY", ids.loinc(term.loinc));
  }
}
