/**
 * The OMOP CDM layer (l4) folded into one compact in-memory index per graph version: every
 * OMOPPerson with gender, age band and data holder, and per concept (SNOMED CT condition, RxNorm
 * drug, LOINC measurement) its row count and the sorted set of persons having it. Built by
 * reading the four l4 labels through the GraphStore port in pages of 20,000 nodes, then shared by
 * analytics, federated cohorts and the question service.
 * Nothing is rescanned until the graph changes.
 */
import { labelScopedCache, scanNodes, type GraphStore, REFERENCE_DAY, isoDate, LAYER_LABELS } from "../graph";
import { allHolders } from "./holders";
import { num, str } from "./scan";

/** ages are computed at the extraction date of the records (the synthetic data's reference day) */
export const AGE_REFERENCE_DATE = isoDate(REFERENCE_DAY);
export const AGE_BANDS = ["0-17", "18-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80+"] as const;
export type AgeBand = (typeof AGE_BANDS)[number] | "unknown";
export const GENDERS = ["female", "male", "other", "unknown"] as const;
export type Gender = (typeof GENDERS)[number];

/** OMOP gender concepts */
const GENDER_CONCEPT: Record<number, Gender> = {
  8532: "female",
  8507: "male",
  8521: "other",
  8551: "unknown",
};

export interface PersonFacts {
  personId: number;
  holder: string;
  gender: Gender;
  yearOfBirth: number | null;
  age: number | null;
  ageBand: AgeBand;
}

export interface CodeStats {
  code: string;
  /** OMOP concept id of the rows (0: no matching concept) */
  conceptId: number;
  rows: number;
  /** sorted, distinct indexes into OmopIndex.persons */
  persons: Int32Array;
}

export interface MeasurementStats extends CodeStats {
  unit: string | null;
  values: number;
  sum: number;
  sumSq: number;
  aboveRange: number;
  belowRange: number;
}

export type OmopIndex = Awaited<ReturnType<typeof buildOmopIndex>>;

export function ageBandOf(age: number | null): AgeBand {
  if (age === null || age < 0) return "unknown";
  if (age < 18) return "0-17";
  if (age < 30) return "18-29";
  if (age >= 80) return "80+";
  const lo = Math.floor(age / 10) * 10;
  return `${lo}-${lo + 9}` as AgeBand;
}

export function ageAt(reference: string, year: number, month?: number, day?: number): number {
  const [ry, rm, rd] = reference.split("-").map(Number);
  let age = ry - year;
  if (month !== undefined && (rm < month || (rm === month && day !== undefined && rd < day))) age--;
  return age;
}

function genderOf(p: Record<string, unknown>): Gender {
  const source = str(p.genderSourceValue)?.toLowerCase();
  if (source === "female" || source === "f") return "female";
  if (source === "male" || source === "m") return "male";
  const concept = num(p.genderConceptId);
  if (concept !== undefined && GENDER_CONCEPT[concept]) return GENDER_CONCEPT[concept];
  return source ? "other" : "unknown";
}

interface Acc {
  conceptId: number;
  rows: number;
  persons: number[];
}

function finish(acc: Map<string, Acc>): Map<string, CodeStats> {
  const out = new Map<string, CodeStats>();
  for (const [code, a] of acc)
    out.set(code, { code, conceptId: a.conceptId, rows: a.rows, persons: distinctSorted(a.persons) });
  return out;
}

function distinctSorted(values: number[]): Int32Array {
  const sorted = Int32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return sorted.slice(0, n);
}

export async function buildOmopIndex(graph: GraphStore) {
  const started = performance.now();
  const version = graph.version();
  const persons: PersonFacts[] = [];
  const indexOfPerson = new Map<number, number>();
  for await (const page of scanNodes(graph, "OMOPPerson")) {
    for (const n of page) {
      const p = n.properties;
      const personId = num(p.personId);
      if (personId === undefined || indexOfPerson.has(personId)) continue;
      const year = num(p.yearOfBirth) ?? null;
      const age =
        year === null ? null : ageAt(AGE_REFERENCE_DATE, year, num(p.monthOfBirth), num(p.dayOfBirth));
      indexOfPerson.set(personId, persons.length);
      persons.push({
        personId,
        holder: str(p.careSiteSourceValue) ?? "unknown",
        gender: genderOf(p),
        yearOfBirth: year,
        age,
        ageBand: ageBandOf(age),
      });
    }
  }

  const visits = new Set<number>();
  const rows = { conditionOccurrences: 0, drugExposures: 0, measurements: 0 };
  const scanRows = async (
    label: string,
    sourceKey: string,
    conceptKey: string,
    onRow?: (code: string, p: Record<string, unknown>) => void,
  ) => {
    const acc = new Map<string, Acc>();
    let count = 0;
    for await (const page of scanNodes(graph, label)) {
      for (const n of page) {
        const p = n.properties;
        count++;
        const conceptId = num(p[conceptKey]) ?? 0;
        const code = str(p[sourceKey]) ?? `concept:${conceptId}`;
        let a = acc.get(code);
        if (!a) acc.set(code, (a = { conceptId, rows: 0, persons: [] }));
        a.rows++;
        const idx = indexOfPerson.get(num(p.personId) ?? -1);
        if (idx !== undefined) a.persons.push(idx);
        const visit = num(p.visitOccurrenceId);
        if (visit !== undefined) visits.add(visit);
        onRow?.(code, p);
      }
    }
    return { acc, count };
  };

  const cond = await scanRows("ConditionOccurrence", "conditionSourceValue", "conditionConceptId");
  rows.conditionOccurrences = cond.count;
  const drug = await scanRows("DrugExposure", "drugSourceValue", "drugConceptId");
  rows.drugExposures = drug.count;
  const values = new Map<string, Omit<MeasurementStats, keyof CodeStats>>();
  const meas = await scanRows("Measurement", "measurementSourceValue", "measurementConceptId", (code, p) => {
    let v = values.get(code);
    if (!v) {
      const unit = str(p.unitSourceValue) ?? null;
      values.set(code, (v = { unit, values: 0, sum: 0, sumSq: 0, aboveRange: 0, belowRange: 0 }));
    }
    const x = num(p.valueAsNumber);
    if (x === undefined) return;
    v.values++;
    v.sum += x;
    v.sumSq += x * x;
    const hi = num(p.rangeHigh);
    const lo = num(p.rangeLow);
    if (hi !== undefined && x > hi) v.aboveRange++;
    else if (lo !== undefined && x < lo) v.belowRange++;
  });
  rows.measurements = meas.count;

  const measurements = new Map<string, MeasurementStats>();
  for (const [code, stats] of finish(meas.acc)) measurements.set(code, { ...stats, ...values.get(code)! });
  return {
    version,
    builtAt: new Date().toISOString(),
    buildMs: Math.round(performance.now() - started),
    persons,
    indexOfPerson,
    conditions: finish(cond.acc),
    drugs: finish(drug.acc),
    measurements,
    totals: { persons: persons.length, visits: visits.size, ...rows },
    holders: [...new Set(persons.map((p) => p.holder))].sort(),
  };
}

export function createOmopIndexCache(graph: GraphStore) {
  const cache = labelScopedCache(graph, LAYER_LABELS.l4, () => buildOmopIndex(graph));
  return {
    get: () => cache.get(),
    index: async () => (await cache.get()).value,
  };
}
export type OmopIndexCache = ReturnType<typeof createOmopIndexCache>;

/** how many of `members` (indexes of persons, all when omitted) have each value of `attr`, every value listed */
export function tally(
  index: OmopIndex,
  attr: "holder" | "gender" | "ageBand",
  members: Iterable<number> = index.persons.keys(),
): Map<string, number> {
  const values =
    attr === "holder" ? allHolders(index) : attr === "gender" ? GENDERS : [...AGE_BANDS, "unknown"];
  const counts = new Map<string, number>(values.map((v) => [v, 0]));
  for (const i of members) {
    const v = index.persons[i][attr];
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return counts;
}

/** intersection of sorted distinct index arrays */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0,
    j = 0,
    n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out[n++] = a[i];
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return out.slice(0, n);
}
