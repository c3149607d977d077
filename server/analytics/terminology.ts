/**
 * Term → code resolution against the ontology layer (l5): a phrase from a question or a cohort
 * criterion ("urinary tract infection", "UTI", "N39.0", "68566005", "cipro", "HbA1c") becomes a
 * SNOMED CT condition (with its ICD-10 mapping), an RxNorm ingredient or a LOINC measurement.
 * Order: code forms (SNOMED CT / ICD-10 / RxNorm / ATC / LOINC), curated synonyms, exact display
 * names (SNOMED CT and mapped ICD-10 names), then token matching on display names. Only concepts
 * that exist in the graph are returned.
 */
import { z } from "zod";
import type { Concept, ConceptDictionary, ConceptKind } from "./concepts";

export interface Resolution {
  term: string;
  concept: Concept;
  via: "code" | "icd10" | "atc" | "synonym" | "name" | "words";
}

/** everyday names clinicians and researchers use, keyed by code */
// prettier-ignore
const SYNONYMS: Record<ConceptKind, Record<string, string[]>> = {
  condition: {
    "44054006": ["diabetes", "type 2 diabetes", "t2d", "t2dm", "diabetes type 2", "diabetes mellitus", "type ii diabetes"],
    "46635009": ["type 1 diabetes", "t1d", "t1dm", "diabetes type 1"],
    "38341003": ["hypertension", "high blood pressure", "essential hypertension"],
    "55822004": ["hyperlipidaemia", "high cholesterol", "dyslipidemia", "dyslipidaemia"],
    "53741008": ["coronary artery disease", "cad", "coronary heart disease"],
    "22298006": ["heart attack", "mi", "myocardial infarction"],
    "84114007": ["heart failure", "chf", "congestive heart failure"],
    "49436004": ["afib", "af", "atrial fibrillation"],
    "230690007": ["stroke", "cva"],
    "709044004": ["ckd", "kidney disease", "chronic kidney disease", "renal failure"],
    "195967001": ["asthma"],
    "13645005": ["copd", "chronic obstructive pulmonary disease"],
    "35489007": ["depression", "major depression"],
    "197480006": ["anxiety"],
    "414916001": ["obesity", "obese"],
    "40930008": ["hypothyroidism", "underactive thyroid"],
    "235595009": ["gerd", "reflux", "acid reflux", "gord"],
    "69896004": ["rheumatoid arthritis", "ra"],
    "396275006": ["osteoarthritis", "arthrosis"],
    "64859006": ["osteoporosis"],
    "90560007": ["gout"],
    "271737000": ["anaemia", "anemia"],
    "37796009": ["migraine"],
    "84757009": ["epilepsy", "seizure disorder"],
    "26929004": ["alzheimer", "alzheimers", "alzheimer's", "dementia"],
    "49049000": ["parkinson", "parkinsons", "parkinson's"],
    "68566005": ["uti", "utis", "urinary tract infection", "urinary tract infections", "urinary infection", "bladder infection"],
    "38822007": ["cystitis"],
    "233604007": ["pneumonia"],
    "10509002": ["bronchitis", "acute bronchitis"],
    "195662009": ["pharyngitis", "sore throat", "viral pharyngitis"],
    "840539006": ["covid", "covid 19", "covid-19", "sars-cov-2 infection", "coronavirus"],
    "429513001": ["tendon rupture", "tendon ruptures", "achilles tendon rupture", "ruptured tendon", "achilles rupture", "tendinopathy"],
  },
  drug: {
    "2551": ["cipro", "ciprofloxacin", "ciprofloxacine"],
    "82122": ["levaquin"],
    "6809": ["metformin", "glucophage"],
    "274783": ["insulin", "lantus"],
    "1191": ["asa", "acetylsalicylic acid"],
    "161": ["paracetamol", "tylenol"],
    "5640": ["advil", "nurofen"],
    "435": ["salbutamol", "ventolin"],
    "83367": ["lipitor"],
    "1364430": ["eliquis"],
    "11289": ["coumadin"],
  },
  measurement: {
    "4548-4": ["hba1c", "a1c", "glycated haemoglobin", "glycated hemoglobin", "hemoglobin a1c", "haemoglobin a1c"],
    "2345-7": ["glucose", "blood glucose", "blood sugar"],
    "8480-6": ["systolic blood pressure", "blood pressure", "systolic", "sbp"],
    "8462-4": ["diastolic blood pressure", "diastolic", "dbp"],
    "8867-4": ["heart rate", "pulse"],
    "9279-1": ["respiratory rate"],
    "8310-5": ["temperature", "body temperature", "fever"],
    "29463-7": ["weight", "body weight"],
    "39156-5": ["bmi", "body mass index"],
    "59408-5": ["oxygen saturation", "spo2", "o2 saturation"],
    "2093-3": ["cholesterol", "total cholesterol"],
    "2085-9": ["hdl", "hdl cholesterol"],
    "13457-7": ["ldl", "ldl cholesterol"],
    "2571-8": ["triglycerides", "triglyceride"],
    "2160-0": ["creatinine", "serum creatinine"],
    "33914-3": ["egfr", "gfr", "glomerular filtration rate"],
    "718-7": ["hemoglobin", "haemoglobin", "hb"],
    "6690-2": ["leukocytes", "white blood cells", "wbc", "white cell count"],
    "777-3": ["platelets", "platelet count"],
    "2951-2": ["sodium"],
    "2823-3": ["potassium"],
    "1988-5": ["crp", "c-reactive protein", "c reactive protein"],
    "3016-3": ["tsh", "thyrotropin"],
    "1742-6": ["alt", "alanine aminotransferase"],
    "6301-6": ["inr"],
  },
};

const STOP = new Set([
  "a",
  "an",
  "the",
  "any",
  "of",
  "with",
  "in",
  "and",
  "or",
  "for",
  "to",
  "on",
  "by",
  "patients",
  "patient",
  "people",
  "persons",
  "level",
  "levels",
  "value",
  "values",
  "test",
  "serum",
  "plasma",
  "blood",
  "mass",
  "volume",
  "disorder",
  "disease",
  "mellitus",
]);

export function normalizeTerm(term: string): string {
  return term
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[’`]/g, "'")
    .replace(/[?!;:"()[\]{}]/g, " ")
    .replace(/\s+/g, " ")
    .replace(/^(?:an?|the|any|some)\s+/, "")
    .replace(/[.,]+$/, "")
    .trim();
}

const stem = (w: string) =>
  w.length > 4 && w.endsWith("es") && !w.endsWith("ses")
    ? w.slice(0, -2)
    : w.length > 3 && w.endsWith("s") && !w.endsWith("ss")
      ? w.slice(0, -1)
      : w;

function words(s: string): string[] {
  return normalizeTerm(s)
    .split(/[^a-z0-9']+/)
    .filter(Boolean)
    .map(stem);
}

function synonymsOf(c: Concept): string[] {
  return SYNONYMS[c.kind][c.code] ?? [];
}

export function resolveTerm(dict: ConceptDictionary, kind: ConceptKind, raw: string): Resolution | null {
  const term = normalizeTerm(raw);
  if (!term) return null;
  const candidates = dict.byKind[kind];
  const code = raw.trim();
  // code forms
  const direct = dict.get(kind, code);
  if (direct) return { term: raw, concept: direct, via: "code" };
  if (kind === "condition" && /^[a-z]\d{2}(\.\d{1,2})?$/i.test(code)) {
    const mapped = dict.byIcd10(code);
    if (mapped.length) return { term: raw, concept: mapped[0], via: "icd10" };
  }
  if (kind === "drug" && /^[a-z]\d{2}[a-z]{2}\d{2}$/i.test(code)) {
    const atc = candidates.find((c) => c.atc?.toLowerCase() === code.toLowerCase());
    if (atc) return { term: raw, concept: atc, via: "atc" };
  }
  // curated synonyms and exact names
  const synonym = candidates.find((c) => synonymsOf(c).includes(term));
  if (synonym) return { term: raw, concept: synonym, via: "synonym" };
  const named = candidates.find(
    (c) => normalizeTerm(c.display) === term || (c.icd10 && normalizeTerm(c.icd10.display) === term),
  );
  if (named) return { term: raw, concept: named, via: "name" };
  // every word of the term found at the start of a word of the name (ICD-10 names count for conditions)
  const want = words(term).filter((w) => !STOP.has(w));
  if (!want.length) return null;
  let best: { c: Concept; score: number; len: number } | null = null;
  for (const c of candidates) {
    for (const text of [c.display, c.icd10?.display ?? "", ...synonymsOf(c)]) {
      if (!text) continue;
      const have = words(text);
      if (!want.every((w) => have.some((h) => h.startsWith(w) || (w.startsWith(h) && h.length >= 4))))
        continue;
      const score = want.length / have.length;
      if (!best || score > best.score || (score === best.score && text.length < best.len))
        best = { c, score, len: text.length };
    }
  }
  return best ? { term: raw, concept: best.c, via: "words" } : null;
}

/** three names of the kind, quoted, for error messages */
export function examplesOf(dict: ConceptDictionary, kind: ConceptKind): string {
  return dict.byKind[kind]
    .slice(0, 3)
    .map((c) => `"${c.display}"`)
    .join(", ");
}

/** a concept as describeConcept() tells it */
export const describedConcept = z.object({
  code: z.string(),
  system: z.string(),
  display: z.string(),
  icd10: z.string().optional(),
  icd10Display: z.string().optional(),
  atc: z.string().optional(),
  unit: z.string().optional(),
  omopConceptId: z.number().nullable(),
});

export function describeConcept(c: Concept): z.infer<typeof describedConcept> {
  return {
    code: c.code,
    system: c.system,
    display: c.display,
    ...(c.icd10 ? { icd10: c.icd10.code, icd10Display: c.icd10.display } : {}),
    ...(c.atc ? { atc: c.atc } : {}),
    ...(c.unit ? { unit: c.unit } : {}),
    omopConceptId: c.omopConceptId,
  };
}
