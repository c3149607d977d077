/**
 * Layer l3: a patient's FHIR R4 resources (Patient, Encounter, Condition, Observation,
 * MedicationRequest), written from their clinical timeline. The patient's nodes are emitted
 * consecutively: the Patient first, then its resources.
 */
import { type ClinicalTimeline, type EncounterClass, type EncounterEvent } from "./clinical";
import { ids } from "./ids";
import { organisation } from "./organisations";
import { type PatientProfile, REFERENCE_DAY } from "./population";
import { type Prng, isoDate, isoDateTime } from "./prng";
import { type RecordBuffer } from "./records";
import { CODE_SYSTEMS, condition, drug, measurement } from "./terminology";

const ENCOUNTER_CLASS: Record<EncounterClass, string> = {
  AMB: "ambulatory",
  IMP: "inpatient encounter",
  EMER: "emergency",
};

export function writeFhir(
  out: RecordBuffer,
  rng: Prng,
  profile: PatientProfile,
  timeline: ClinicalTimeline,
): void {
  const p = profile.index;
  const patient = out.node("Patient", profile.id, {
    resourceType: "Patient",
    resourceId: profile.resourceId,
    name: `${profile.givenName} ${profile.familyName}`,
    givenName: profile.givenName,
    familyName: profile.familyName,
    gender: profile.gender,
    birthDate: isoDate(profile.birthDay),
    city: profile.city,
    country: profile.country,
    holder: profile.holder,
  });
  const encounterId = (e: EncounterEvent) => ids.encounter(p, e.seq);

  for (const e of timeline.encounters) {
    const reason = e.reason ? condition(e.reason) : null;
    out.node("Encounter", encounterId(e), {
      resourceType: "Encounter",
      resourceId: rng.uuid(),
      status: "finished",
      class: e.klass,
      classDisplay: ENCOUNTER_CLASS[e.klass],
      periodStart: isoDateTime(e.day, e.startMinute),
      periodEnd: isoDateTime(e.endDay, e.endMinute),
      reasonCode: reason?.snomed ?? null,
      reasonDisplay: reason?.display ?? null,
      serviceProvider: organisation(profile.holder).displayName,
      holder: profile.holder,
      patientId: patient,
    });
    out.edge(patient, "HAS_ENCOUNTER", encounterId(e));
  }

  for (const c of timeline.conditions) {
    const term = condition(c.snomed);
    const id = out.node("Condition", ids.condition(p, c.seq), {
      resourceType: "Condition",
      resourceId: rng.uuid(),
      clinicalStatus: c.abatementDay !== null && c.abatementDay <= REFERENCE_DAY ? "resolved" : "active",
      verificationStatus: "confirmed",
      category: term.course === "chronic" ? "problem-list-item" : "encounter-diagnosis",
      code: term.snomed,
      codeSystem: CODE_SYSTEMS.snomed,
      display: term.display,
      icd10Code: term.icd10,
      onsetDate: isoDate(c.onsetDay),
      abatementDate: c.abatementDay === null ? null : isoDate(c.abatementDay),
      recordedDate: isoDate(c.encounter.day),
      encounterId: encounterId(c.encounter),
      patientId: patient,
    });
    out.edge(patient, "HAS_CONDITION", id);
    out.edge(id, "RECORDED_IN", encounterId(c.encounter));
    out.edge(id, "CODED_BY", ids.snomed(term.snomed));
  }

  for (const o of timeline.observations) {
    const term = measurement(o.loinc);
    const interpretation = o.value > term.referenceHigh ? "H" : o.value < term.referenceLow ? "L" : "N";
    const id = out.node("Observation", ids.observation(p, o.seq), {
      resourceType: "Observation",
      resourceId: rng.uuid(),
      status: "final",
      category: term.category,
      code: term.loinc,
      codeSystem: CODE_SYSTEMS.loinc,
      display: term.display,
      value: o.value,
      unit: term.unit,
      unitSystem: CODE_SYSTEMS.ucum,
      referenceRangeLow: term.referenceLow,
      referenceRangeHigh: term.referenceHigh,
      interpretation,
      effectiveDateTime: isoDateTime(o.encounter.day, o.encounter.startMinute),
      encounterId: encounterId(o.encounter),
      patientId: patient,
    });
    out.edge(patient, "HAS_OBSERVATION", id);
    out.edge(id, "RECORDED_IN", encounterId(o.encounter));
    out.edge(id, "CODED_BY", ids.loinc(term.loinc));
  }

  for (const m of timeline.medications) {
    const term = drug(m.rxnorm);
    const reason = condition(m.reason.snomed);
    const id = out.node("MedicationRequest", ids.medicationRequest(p, m.seq), {
      resourceType: "MedicationRequest",
      resourceId: rng.uuid(),
      status: term.course === "chronic" || m.endDay >= REFERENCE_DAY ? "active" : "completed",
      intent: "order",
      code: term.rxnorm,
      codeSystem: CODE_SYSTEMS.rxnorm,
      display: term.display,
      atcCode: term.atc,
      dosageText: term.dosage,
      authoredOn: isoDate(m.startDay),
      daysSupply: term.daysSupply,
      expectedEndDate: isoDate(m.endDay),
      reasonCode: reason.snomed,
      reasonDisplay: reason.display,
      encounterId: encounterId(m.encounter),
      patientId: patient,
    });
    out.edge(patient, "HAS_MEDICATION_REQUEST", id);
    out.edge(id, "RECORDED_IN", encounterId(m.encounter));
    out.edge(id, "TREATS", ids.condition(p, m.reason.seq));
    out.edge(id, "CODED_BY", ids.rxnorm(term.rxnorm));
  }
}
