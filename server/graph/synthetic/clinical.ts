/**
 * A patient's clinical timeline, drawn from their profile: encounters, the conditions diagnosed
 * at them, prescriptions and measurements. Both the FHIR (l3) and the OMOP (l4) records are
 * written from this one timeline, so the two layers always agree.
 */
import { type PatientProfile, REFERENCE_DAY, WINDOW_START_DAY } from "./population";
import { type Prng } from "./prng";
import {
  MEASUREMENTS,
  PHARMACOVIGILANCE,
  ROUTINE_MEASUREMENTS,
  condition,
  drug,
  measurement,
  type MeasurementTerm,
} from "./terminology";

export type EncounterClass = "AMB" | "IMP" | "EMER";

export interface EncounterEvent {
  /** 1-based position in date order */
  seq: number;
  klass: EncounterClass;
  day: number;
  /** minutes after midnight */
  startMinute: number;
  /** the day the encounter ended (equal to `day` unless inpatient) */
  endDay: number;
  endMinute: number;
  /** SNOMED CT code of the main condition dealt with, if any */
  reason: string | null;
}

export interface ConditionEvent {
  seq: number;
  snomed: string;
  encounter: EncounterEvent;
  onsetDay: number;
  abatementDay: number | null;
}

export interface MedicationEvent {
  seq: number;
  rxnorm: string;
  reason: ConditionEvent;
  encounter: EncounterEvent;
  startDay: number;
  endDay: number;
}

export interface ObservationEvent {
  seq: number;
  loinc: string;
  encounter: EncounterEvent;
  value: number;
}

export interface ClinicalTimeline {
  encounters: EncounterEvent[];
  conditions: ConditionEvent[];
  medications: MedicationEvent[];
  observations: ObservationEvent[];
}

const YEAR = 365;

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

function newEncounter(rng: Prng, day: number, klass: EncounterClass, reason: string | null): EncounterEvent {
  const startMinute = rng.int(7 * 60, 18 * 60);
  const stay = klass === "IMP" ? rng.int(3, 9) : 0;
  const endMinute =
    klass === "IMP" ? rng.int(9 * 60, 14 * 60) : startMinute + rng.int(20, klass === "EMER" ? 300 : 60);
  return { seq: 0, klass, day, startMinute, endDay: day + stay, endMinute, reason };
}

function planEncounters(
  rng: Prng,
  profile: PatientProfile,
): { encounters: EncounterEvent[]; conditions: ConditionEvent[] } {
  const firstDay = Math.max(WINDOW_START_DAY, profile.birthDay + YEAR);
  const lastDay = REFERENCE_DAY - 60;
  const count = profile.rich ? 5 : rng.int(2, 4);
  const days = Array.from({ length: count }, () => rng.int(firstDay, lastDay)).sort((a, b) => a - b);
  const routine = days.map((day) => newEncounter(rng, day, "AMB", null));
  const encounters = [...routine];
  const conditions: ConditionEvent[] = [];
  const { urinaryTractInfection: uti, tendonRupture } = PHARMACOVIGILANCE;
  const utiEvent = () => conditions.find((c) => c.snomed === uti);
  const withAcuteEpisode = new Set<EncounterEvent>();

  for (const snomed of profile.conditions) {
    const term = condition(snomed);
    let encounter: EncounterEvent;
    if (snomed === tendonRupture) {
      // after the ciprofloxacin course for an exposed patient; any time for everyone else
      const exposure = profile.pharmacovigilance === "exposed-ruptured" ? utiEvent() : undefined;
      const day = exposure ? exposure.encounter.day + rng.int(5, 35) : rng.int(firstDay, lastDay);
      encounter = newEncounter(rng, day, "EMER", snomed);
      encounters.push(encounter);
    } else if (snomed === uti && profile.pharmacovigilance !== "none") {
      encounter = routine[0];
    } else if (term.course === "acute") {
      const free = routine.filter((e) => !withAcuteEpisode.has(e));
      encounter = free.length ? rng.pick(free) : newEncounter(rng, rng.int(firstDay, lastDay), "AMB", null);
      if (!free.length) encounters.push(encounter);
      if (snomed === "233604007" && rng.chance(0.5)) {
        // pneumonia: half of the episodes are admitted
        Object.assign(encounter, newEncounter(rng, encounter.day, "IMP", null));
      }
    } else {
      encounter = rng.pick(routine);
    }
    if (term.course === "acute") {
      withAcuteEpisode.add(encounter);
      encounter.reason = snomed;
    } else {
      encounter.reason ??= snomed;
    }
    const onsetDay =
      term.course === "acute"
        ? encounter.day - rng.int(0, 3)
        : Math.max(profile.birthDay + YEAR, encounter.day - rng.int(0, 6 * YEAR));
    const abatementDay = term.course === "acute" ? encounter.day + rng.int(5, 21) : null;
    conditions.push({ seq: 0, snomed, encounter, onsetDay, abatementDay });
  }

  encounters.sort((a, b) => a.day - b.day || a.startMinute - b.startMinute);
  encounters.forEach((e, i) => (e.seq = i + 1));
  conditions.forEach((c, i) => (c.seq = i + 1));
  return { encounters, conditions };
}

function planMedications(
  rng: Prng,
  profile: PatientProfile,
  conditions: ConditionEvent[],
  encounters: EncounterEvent[],
): MedicationEvent[] {
  return profile.prescriptions.map((p, i) => {
    const reason = conditions.find((c) => c.snomed === p.reason);
    if (!reason) throw new Error(`prescription for ${p.reason} without the condition`);
    const term = drug(p.rxnorm);
    // chronic treatment may start at a later visit than the diagnosis
    const later = encounters.filter((e) => e.day >= reason.encounter.day && e.klass !== "EMER");
    const encounter = term.course === "chronic" && later.length ? rng.pick(later) : reason.encounter;
    const startDay = encounter.klass === "IMP" ? encounter.endDay : encounter.day;
    return {
      seq: i + 1,
      rxnorm: p.rxnorm,
      reason,
      encounter,
      startDay,
      endDay: startDay + term.daysSupply - 1,
    };
  });
}

/** the distribution of a measurement for this patient at this encounter */
function distribution(
  term: MeasurementTerm,
  timeline: Omit<ClinicalTimeline, "observations">,
  encounter: EncounterEvent,
) {
  for (const [code, shift] of Object.entries(term.shifted ?? {})) {
    const affected =
      timeline.conditions.some(
        (c) => c.snomed === code && (condition(code).course === "chronic" || c.encounter === encounter),
      ) || timeline.medications.some((m) => m.rxnorm === code && m.startDay <= encounter.day);
    if (affected) return shift;
  }
  return { mean: term.mean, sd: term.sd };
}

function planObservations(
  rng: Prng,
  profile: PatientProfile,
  timeline: Omit<ClinicalTimeline, "observations">,
): ObservationEvent[] {
  const wanted = new Map<string, EncounterEvent>();
  for (const c of timeline.conditions) {
    for (const loinc of condition(c.snomed).monitoredBy)
      if (!wanted.has(loinc)) wanted.set(loinc, c.encounter);
  }
  for (const m of timeline.medications) {
    for (const t of MEASUREMENTS) {
      if (t.shifted?.[m.rxnorm] && !wanted.has(t.loinc)) wanted.set(t.loinc, m.encounter);
    }
  }
  const count = profile.rich ? rng.int(8, 10) : rng.int(3, 8);
  const routine = ROUTINE_MEASUREMENTS.filter((code) => !wanted.has(code));
  while (wanted.size < count && routine.length) {
    const code = routine.splice(rng.int(0, routine.length - 1), 1)[0];
    wanted.set(code, rng.pick(timeline.encounters));
  }

  // weight and BMI describe one body: BMI is drawn, weight = BMI x height²
  const heightM =
    profile.gender === "male" ? rng.normal(1.79, 0.07, 1.55, 2.05) : rng.normal(1.66, 0.065, 1.45, 1.9);
  const bmiShape = distribution(measurement("39156-5"), timeline, timeline.encounters[0]);
  const bmi = rng.normal(bmiShape.mean, bmiShape.sd, 16, 55);
  return [...wanted].slice(0, count).map(([loinc, encounter], i) => {
    const term = measurement(loinc);
    const { mean, sd } = distribution(term, timeline, encounter);
    const raw =
      loinc === "39156-5"
        ? bmi
        : loinc === "29463-7"
          ? bmi * heightM * heightM
          : rng.normal(mean, sd, 0, Infinity);
    return { seq: i + 1, loinc, encounter, value: round(raw, term.decimals) };
  });
}

export function buildTimeline(rng: Prng, profile: PatientProfile): ClinicalTimeline {
  const { encounters, conditions } = planEncounters(rng, profile);
  const medications = planMedications(rng, profile, conditions, encounters);
  const partial = { encounters, conditions, medications };
  return { ...partial, observations: planObservations(rng, profile, partial) };
}
