/**
 * Who the synthetic patients are: demographics, the organisation holding their record, their
 * conditions and prescriptions. A profile is drawn from its own random stream (seed, index), so
 * patient N is the same whatever the population size, and profiles can be drawn twice — once to
 * count dataset members, once to build the records — without keeping them in memory.
 *
 * Pharmacovigilance signal: in every block of COHORT_BLOCK consecutive patients, COHORT_CASES
 * patients at random positions have a urinary tract infection treated with ciprofloxacin (1.5%),
 * and the first of them in the block goes on to a tendon rupture (1 in 6, ~17%), against a
 * background rupture rate of BACKGROUND_RUPTURE in everyone else.
 */
import { ids } from "./ids";
import { Prng, dayOf } from "./prng";
import { CONDITIONS, INDICATIONS, PHARMACOVIGILANCE, condition, type ConditionTerm } from "./terminology";

export const HOLDERS = { berlin: "alphaklinik-berlin", limburg: "lmc" } as const;
export type Holder = (typeof HOLDERS)[keyof typeof HOLDERS];
export type Gender = "female" | "male";

/** the day the synthetic records were extracted: ages and statuses are relative to it */
export const REFERENCE_DAY = dayOf("2025-06-30");
/** the first day of recorded encounters */
export const WINDOW_START_DAY = dayOf("2019-01-01");

export const STREAM = { patient: 1, cohort: 2, marketplace: 3 } as const;

const COHORT_BLOCK = 400;
const COHORT_CASES = 6;
const BACKGROUND_RUPTURE = 0.003;
const SHARE_BERLIN = 0.6;

export interface Prescription {
  rxnorm: string;
  /** SNOMED CT code of the condition it treats */
  reason: string;
}

export type PharmacovigilanceRole = "none" | "exposed" | "exposed-ruptured";

export interface PatientProfile {
  index: number;
  id: string;
  resourceId: string;
  givenName: string;
  familyName: string;
  gender: Gender;
  birthDay: number;
  city: string;
  country: "DE" | "NL";
  holder: Holder;
  /** SNOMED CT codes, distinct */
  conditions: string[];
  prescriptions: Prescription[];
  pharmacovigilance: PharmacovigilanceRole;
  /** the patient accounts get fuller records */
  rich: boolean;
}

/** the synthetic patients that the PATIENT accounts of the identity provider are linked to */
// prettier-ignore
export const ACCOUNT_PATIENTS = [
  { index: 1, username: "patient1", givenName: "Maria", familyName: "Schneider", gender: "female", city: "Berlin", holder: HOLDERS.berlin },
  { index: 2, username: "patient2", givenName: "Thomas", familyName: "Müller", gender: "male", city: "Maastricht", holder: HOLDERS.limburg },
] as const;

// prettier-ignore
const NAMES = {
  DE: {
    female: ["Anna", "Lena", "Laura", "Julia", "Sophie", "Katharina", "Sabine", "Petra", "Monika", "Ursula", "Claudia", "Andrea", "Stefanie", "Hannah", "Marie", "Brigitte", "Renate", "Karin", "Elke", "Ingrid"],
    male: ["Lukas", "Felix", "Jonas", "Maximilian", "Leon", "Paul", "Thomas", "Michael", "Andreas", "Stefan", "Jürgen", "Klaus", "Wolfgang", "Peter", "Frank", "Markus", "Tobias", "Florian", "Dieter", "Uwe"],
    family: ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann", "Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann", "Braun", "Krüger", "Hartmann", "Lange", "Werner"],
  },
  NL: {
    female: ["Emma", "Sophie", "Julia", "Anna", "Lotte", "Sanne", "Fleur", "Anouk", "Lisa", "Eva", "Marieke", "Ingrid", "Annemarie", "Willemijn", "Femke", "Noor", "Maud", "Tessa", "Ilse", "Els"],
    male: ["Daan", "Sem", "Lucas", "Levi", "Bram", "Jesse", "Thijs", "Ruben", "Pieter", "Jan", "Willem", "Hendrik", "Joost", "Sander", "Maarten", "Bas", "Koen", "Niels", "Gerrit", "Wouter"],
    family: ["de Jong", "Jansen", "de Vries", "van den Berg", "van Dijk", "Bakker", "Janssen", "Visser", "Smit", "Meijer", "de Boer", "Mulder", "de Groot", "Bos", "Vos", "Peters", "Hendriks", "van Leeuwen", "Dekker", "Brouwer", "Willems", "Maas", "Claessens", "Schouten", "Vermeulen"],
  },
} as const;

// prettier-ignore
const CITIES: Record<"DE" | "NL", readonly (readonly [string, number])[]> = {
  DE: [["Berlin", 12], ["Potsdam", 2], ["Hamburg", 1], ["Leipzig", 1], ["Dresden", 1], ["Cottbus", 0.8], ["Frankfurt (Oder)", 0.6], ["Magdeburg", 0.8]],
  NL: [["Maastricht", 4], ["Heerlen", 2], ["Sittard", 1.5], ["Venlo", 1.5], ["Roermond", 1.2], ["Kerkrade", 1], ["Weert", 0.8], ["Geleen", 0.8]],
};

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** how likely a condition is for a patient of this age and gender (relative weight) */
function conditionWeight(term: ConditionTerm, age: number, gender: Gender): number {
  const ageFactor =
    term.ageTrend === "rises"
      ? clamp((age - 20) / 35, 0.1, 2.2)
      : term.ageTrend === "falls"
        ? clamp((85 - age) / 45, 0.3, 1.5)
        : 1;
  return term.weight * ageFactor * (gender === "female" ? term.femaleFactor : 1);
}

/** the positions (0-based within the block) of the cohort's cases; patients come in index order, so the last block is kept */
let lastBlock: { seed: number; block: number; positions: Set<number>; first: number } | undefined;

function cohortBlock(seed: number, block: number) {
  if (lastBlock?.seed !== seed || lastBlock.block !== block) {
    const rng = new Prng(seed, STREAM.cohort, block);
    const positions = new Set<number>();
    while (positions.size < COHORT_CASES) positions.add(rng.int(0, COHORT_BLOCK - 1));
    lastBlock = { seed, block, positions, first: Math.min(...positions) };
  }
  return lastBlock;
}

/** the patient's role in the stratified ciprofloxacin / UTI cohort */
function pharmacovigilanceRole(seed: number, index: number): PharmacovigilanceRole {
  const { positions, first } = cohortBlock(seed, Math.floor((index - 1) / COHORT_BLOCK));
  const position = (index - 1) % COHORT_BLOCK;
  if (!positions.has(position)) return "none";
  return position === first ? "exposed-ruptured" : "exposed";
}

function chooseDrugs(rng: Prng, snomed: string): string[] {
  const options = INDICATIONS[snomed] ?? [];
  if (options.length === 0) return [];
  const first = rng.chance(0.65) ? options[0] : rng.pick(options);
  const chosen = [first];
  const chronic = condition(snomed).course === "chronic";
  if (chronic && options.length >= 3 && rng.chance(0.25)) {
    const second = rng.pick(options.filter((o) => o !== first));
    chosen.push(second);
  }
  return chosen;
}

/**
 * Draws the profile from `rng` (the patient's own stream, which the caller goes on using to
 * build the records).
 */
export function drawProfile(rng: Prng, seed: number, index: number): PatientProfile {
  const account = ACCOUNT_PATIENTS.find((a) => a.index === index);
  const rich = account !== undefined;

  const resourceId = rng.uuid();
  let gender: Gender = rng.chance(0.5) ? "female" : "male";
  let holder: Holder = rng.chance(SHARE_BERLIN) ? HOLDERS.berlin : HOLDERS.limburg;
  const age = Math.round(rng.normal(56, 18, 18, 94));
  const birthDay = REFERENCE_DAY - Math.floor(age * 365.25) - rng.int(0, 364);
  if (account) {
    gender = account.gender;
    holder = account.holder;
  }
  const country = holder === HOLDERS.berlin ? "DE" : "NL";
  const names = NAMES[country];
  let givenName: string = rng.pick(names[gender]);
  let familyName: string = rng.pick(names.family);
  let city: string = rng.weighted(CITIES[country], ([, w]) => w)[0];
  if (account) ({ givenName, familyName, city } = account);

  const conditionCount = rich
    ? rng.int(4, 5)
    : rng.weighted(
        [
          [1, 30],
          [2, 35],
          [3, 22],
          [4, 13],
        ] as const,
        ([, w]) => w,
      )[0];
  const conditions = rng
    .weightedSample(CONDITIONS, conditionCount, (t) => conditionWeight(t, age, gender))
    .map((t) => t.snomed)
    .filter((code, _, all) => !(code === "46635009" && all.includes("44054006")));

  const prescriptions: Prescription[] = [];
  const pharmacovigilance = pharmacovigilanceRole(seed, index);
  const { urinaryTractInfection: uti, ciprofloxacin, tendonRupture } = PHARMACOVIGILANCE;
  if (pharmacovigilance !== "none") {
    if (!conditions.includes(uti)) conditions.unshift(uti);
    prescriptions.push({ rxnorm: ciprofloxacin, reason: uti });
    if (pharmacovigilance === "exposed-ruptured") conditions.push(tendonRupture);
  } else if (rng.chance(BACKGROUND_RUPTURE)) {
    conditions.push(tendonRupture);
  }

  const maxPrescriptions = rich ? 5 : 4;
  for (const code of conditions) {
    if (prescriptions.some((p) => p.reason === code)) continue;
    if (rng.chance(0.1) && condition(code).course === "chronic") continue; // managed without drugs
    for (const rxnorm of chooseDrugs(rng, code)) {
      if (prescriptions.length >= maxPrescriptions) break;
      if (!prescriptions.some((p) => p.rxnorm === rxnorm)) prescriptions.push({ rxnorm, reason: code });
    }
  }
  if (prescriptions.length === 0) {
    // a patient with nothing to treat still saw a doctor for a passing infection
    const episode = rng.pick(["195662009", "10509002"]);
    if (!conditions.includes(episode)) conditions.push(episode);
    prescriptions.push({ rxnorm: INDICATIONS[episode][0], reason: episode });
  }

  return {
    index,
    id: ids.patient(index),
    resourceId,
    givenName,
    familyName,
    gender,
    birthDay,
    city,
    country,
    holder,
    conditions,
    prescriptions,
    pharmacovigilance,
    rich,
  };
}
