/**
 * Test oracle: the synthetic population read straight from the generator (profiles and clinical
 * timelines), independent of the graph, the stores and the OMOP index. The insight tests compare
 * what the services compute through the GraphStore port with what the generator wrote.
 */
import { ageAt, ageBandOf, AGE_REFERENCE_DATE } from "../../server/analytics";
import {
  datasetsOf,
  buildTimeline,
  type ClinicalTimeline,
  DEFAULT_SEED,
  drawProfile,
  STREAM,
  type PatientProfile,
  isoDate,
  Prng,
} from "../../server/graph";

export interface OraclePatient {
  personId: number;
  profile: PatientProfile;
  timeline: ClinicalTimeline;
  age: number;
  ageBand: string;
  datasets: string[];
}

export function oracle(patients: number, seed = DEFAULT_SEED): OraclePatient[] {
  const out: OraclePatient[] = [];
  for (let i = 1; i <= patients; i++) {
    const rng = new Prng(seed, STREAM.patient, i);
    const profile = drawProfile(rng, seed, i);
    const timeline = buildTimeline(rng, profile);
    const birth = isoDate(profile.birthDay);
    const age = ageAt(
      AGE_REFERENCE_DATE,
      Number(birth.slice(0, 4)),
      Number(birth.slice(5, 7)),
      Number(birth.slice(8, 10)),
    );
    out.push({ personId: i, profile, timeline, age, ageBand: ageBandOf(age), datasets: datasetsOf(profile) });
  }
  return out;
}

export const hasCondition = (p: OraclePatient, snomed: string) => p.profile.conditions.includes(snomed);
export const takes = (p: OraclePatient, rxnorm: string) =>
  p.profile.prescriptions.some((r) => r.rxnorm === rxnorm);

/** the latest value of a measurement (by encounter day and time), as the OMOP rows carry it */
export function latest(p: OraclePatient, loinc: string): number | undefined {
  const obs = p.timeline.observations
    .filter((o) => o.loinc === loinc)
    .sort((a, b) => a.encounter.day - b.encounter.day || a.encounter.startMinute - b.encounter.startMinute);
  return obs.at(-1)?.value;
}

export function topCounts(counts: Map<string, number>, n = 10): [string, number][] {
  return [...counts]
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n);
}
