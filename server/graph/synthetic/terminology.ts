/**
 * The clinical vocabulary of the synthetic population: real SNOMED CT, ICD-10 (WHO), RxNorm
 * (ingredient level), ATC and LOINC codes with their display names, the SNOMED CT -> ICD-10
 * mapping used for the ontology layer, and OMOP standard concept ids where they are known
 * (null otherwise; OMOP rows then carry concept id 0, "No matching concept").
 */

export const CODE_SYSTEMS = {
  snomed: "http://snomed.info/sct",
  icd10: "http://hl7.org/fhir/sid/icd-10",
  rxnorm: "http://www.nlm.nih.gov/research/umls/rxnorm",
  loinc: "http://loinc.org",
  ucum: "http://unitsofmeasure.org",
  atc: "http://www.whocc.no/atc",
} as const;

export type Course = "chronic" | "acute";
/** how a condition's likelihood changes with age */
export type AgeTrend = "rises" | "falls" | "flat";

export interface ConditionTerm {
  snomed: string;
  display: string;
  icd10: string;
  icd10Display: string;
  omopConceptId: number | null;
  course: Course;
  /** relative likelihood of being among a patient's conditions */
  weight: number;
  ageTrend: AgeTrend;
  /** likelihood multiplier for female patients (1 = none) */
  femaleFactor: number;
  /** the Observation codes a clinician records for it (LOINC) */
  monitoredBy: string[];
}

export interface DrugTerm {
  rxnorm: string;
  display: string;
  atc: string;
  omopConceptId: number | null;
  dosage: string;
  course: Course;
  /** days of supply of one prescription */
  daysSupply: number;
}

export interface MeasurementTerm {
  loinc: string;
  display: string;
  /** UCUM unit */
  unit: string;
  category: "vital-signs" | "laboratory";
  omopConceptId: number | null;
  referenceLow: number;
  referenceHigh: number;
  mean: number;
  sd: number;
  decimals: number;
  /** distribution when the patient has the keyed condition (SNOMED) or drug (RxNorm) */
  shifted?: Record<string, { mean: number; sd: number }>;
}

const VITALS = ["8480-6", "8462-4", "8867-4"];

// prettier-ignore
export const CONDITIONS: readonly ConditionTerm[] = [
  { snomed: "44054006", display: "Diabetes mellitus type 2", icd10: "E11", icd10Display: "Type 2 diabetes mellitus", omopConceptId: 201826, course: "chronic", weight: 9, ageTrend: "rises", femaleFactor: 0.9, monitoredBy: ["4548-4", "2345-7", "29463-7"] },
  { snomed: "46635009", display: "Diabetes mellitus type 1", icd10: "E10", icd10Display: "Type 1 diabetes mellitus", omopConceptId: 201254, course: "chronic", weight: 1, ageTrend: "falls", femaleFactor: 1, monitoredBy: ["4548-4", "2345-7"] },
  { snomed: "38341003", display: "Hypertensive disorder, systemic arterial", icd10: "I10", icd10Display: "Essential (primary) hypertension", omopConceptId: 316866, course: "chronic", weight: 16, ageTrend: "rises", femaleFactor: 1, monitoredBy: VITALS },
  { snomed: "55822004", display: "Hyperlipidemia", icd10: "E78.5", icd10Display: "Hyperlipidaemia, unspecified", omopConceptId: 432867, course: "chronic", weight: 10, ageTrend: "rises", femaleFactor: 1, monitoredBy: ["2093-3", "13457-7", "2085-9", "2571-8"] },
  { snomed: "53741008", display: "Coronary arteriosclerosis", icd10: "I25.1", icd10Display: "Atherosclerotic heart disease", omopConceptId: 317576, course: "chronic", weight: 4, ageTrend: "rises", femaleFactor: 0.6, monitoredBy: ["2093-3", "13457-7", ...VITALS] },
  { snomed: "22298006", display: "Myocardial infarction", icd10: "I21.9", icd10Display: "Acute myocardial infarction, unspecified", omopConceptId: 4329847, course: "chronic", weight: 1.5, ageTrend: "rises", femaleFactor: 0.6, monitoredBy: ["13457-7", "8867-4"] },
  { snomed: "84114007", display: "Heart failure", icd10: "I50.9", icd10Display: "Heart failure, unspecified", omopConceptId: 316139, course: "chronic", weight: 3, ageTrend: "rises", femaleFactor: 0.9, monitoredBy: ["29463-7", "2951-2", "2823-3", "2160-0"] },
  { snomed: "49436004", display: "Atrial fibrillation", icd10: "I48.9", icd10Display: "Atrial fibrillation and atrial flutter, unspecified", omopConceptId: 313217, course: "chronic", weight: 3, ageTrend: "rises", femaleFactor: 0.8, monitoredBy: ["8867-4", "6301-6"] },
  { snomed: "230690007", display: "Cerebrovascular accident", icd10: "I64", icd10Display: "Stroke, not specified as haemorrhage or infarction", omopConceptId: 381316, course: "chronic", weight: 1.2, ageTrend: "rises", femaleFactor: 1, monitoredBy: VITALS },
  { snomed: "709044004", display: "Chronic kidney disease", icd10: "N18.9", icd10Display: "Chronic kidney disease, unspecified", omopConceptId: 46271022, course: "chronic", weight: 3, ageTrend: "rises", femaleFactor: 1, monitoredBy: ["2160-0", "33914-3", "2823-3"] },
  { snomed: "195967001", display: "Asthma", icd10: "J45.9", icd10Display: "Asthma, unspecified", omopConceptId: 317009, course: "chronic", weight: 6, ageTrend: "falls", femaleFactor: 1.1, monitoredBy: ["59408-5", "9279-1"] },
  { snomed: "13645005", display: "Chronic obstructive lung disease", icd10: "J44.9", icd10Display: "Chronic obstructive pulmonary disease, unspecified", omopConceptId: 255573, course: "chronic", weight: 4, ageTrend: "rises", femaleFactor: 0.9, monitoredBy: ["59408-5", "9279-1"] },
  { snomed: "35489007", display: "Depressive disorder", icd10: "F32.9", icd10Display: "Depressive episode, unspecified", omopConceptId: 440383, course: "chronic", weight: 6, ageTrend: "flat", femaleFactor: 1.6, monitoredBy: [] },
  { snomed: "197480006", display: "Anxiety disorder", icd10: "F41.9", icd10Display: "Anxiety disorder, unspecified", omopConceptId: null, course: "chronic", weight: 5, ageTrend: "falls", femaleFactor: 1.6, monitoredBy: [] },
  { snomed: "414916001", display: "Obesity", icd10: "E66.9", icd10Display: "Obesity, unspecified", omopConceptId: 433736, course: "chronic", weight: 7, ageTrend: "flat", femaleFactor: 1, monitoredBy: ["29463-7", "39156-5"] },
  { snomed: "40930008", display: "Hypothyroidism", icd10: "E03.9", icd10Display: "Hypothyroidism, unspecified", omopConceptId: 140673, course: "chronic", weight: 4, ageTrend: "rises", femaleFactor: 3, monitoredBy: ["3016-3"] },
  { snomed: "235595009", display: "Gastroesophageal reflux disease", icd10: "K21.9", icd10Display: "Gastro-oesophageal reflux disease without oesophagitis", omopConceptId: 318800, course: "chronic", weight: 5, ageTrend: "flat", femaleFactor: 1, monitoredBy: [] },
  { snomed: "69896004", display: "Rheumatoid arthritis", icd10: "M06.9", icd10Display: "Rheumatoid arthritis, unspecified", omopConceptId: 80809, course: "chronic", weight: 1.5, ageTrend: "rises", femaleFactor: 2.5, monitoredBy: ["1988-5", "1742-6"] },
  { snomed: "396275006", display: "Osteoarthritis", icd10: "M19.9", icd10Display: "Arthrosis, unspecified", omopConceptId: 80180, course: "chronic", weight: 6, ageTrend: "rises", femaleFactor: 1.3, monitoredBy: [] },
  { snomed: "64859006", display: "Osteoporosis", icd10: "M81.9", icd10Display: "Osteoporosis, unspecified", omopConceptId: 80502, course: "chronic", weight: 3, ageTrend: "rises", femaleFactor: 4, monitoredBy: [] },
  { snomed: "90560007", display: "Gout", icd10: "M10.9", icd10Display: "Gout, unspecified", omopConceptId: 440674, course: "chronic", weight: 2, ageTrend: "rises", femaleFactor: 0.3, monitoredBy: ["2160-0"] },
  { snomed: "271737000", display: "Anemia", icd10: "D64.9", icd10Display: "Anaemia, unspecified", omopConceptId: 439777, course: "chronic", weight: 3, ageTrend: "flat", femaleFactor: 2, monitoredBy: ["718-7"] },
  { snomed: "37796009", display: "Migraine", icd10: "G43.9", icd10Display: "Migraine, unspecified", omopConceptId: 318736, course: "chronic", weight: 4, ageTrend: "falls", femaleFactor: 2.5, monitoredBy: [] },
  { snomed: "84757009", display: "Epilepsy", icd10: "G40.9", icd10Display: "Epilepsy, unspecified", omopConceptId: 380378, course: "chronic", weight: 1, ageTrend: "flat", femaleFactor: 1, monitoredBy: [] },
  { snomed: "26929004", display: "Alzheimer's disease", icd10: "G30.9", icd10Display: "Alzheimer disease, unspecified", omopConceptId: 378419, course: "chronic", weight: 1, ageTrend: "rises", femaleFactor: 1.5, monitoredBy: [] },
  { snomed: "49049000", display: "Parkinson's disease", icd10: "G20", icd10Display: "Parkinson disease", omopConceptId: 381270, course: "chronic", weight: 0.8, ageTrend: "rises", femaleFactor: 0.7, monitoredBy: [] },
  { snomed: "68566005", display: "Urinary tract infectious disease", icd10: "N39.0", icd10Display: "Urinary tract infection, site not specified", omopConceptId: 81902, course: "acute", weight: 2.5, ageTrend: "flat", femaleFactor: 3, monitoredBy: ["6690-2", "1988-5", "8310-5"] },
  { snomed: "38822007", display: "Cystitis", icd10: "N30.9", icd10Display: "Cystitis, unspecified", omopConceptId: null, course: "acute", weight: 1.5, ageTrend: "flat", femaleFactor: 3, monitoredBy: ["8310-5"] },
  { snomed: "233604007", display: "Pneumonia", icd10: "J18.9", icd10Display: "Pneumonia, unspecified", omopConceptId: 255848, course: "acute", weight: 3, ageTrend: "rises", femaleFactor: 1, monitoredBy: ["6690-2", "1988-5", "8310-5", "59408-5"] },
  { snomed: "10509002", display: "Acute bronchitis", icd10: "J20.9", icd10Display: "Acute bronchitis, unspecified", omopConceptId: 260139, course: "acute", weight: 5, ageTrend: "flat", femaleFactor: 1, monitoredBy: ["8310-5", "9279-1"] },
  { snomed: "195662009", display: "Acute viral pharyngitis", icd10: "J02.9", icd10Display: "Acute pharyngitis, unspecified", omopConceptId: 4112343, course: "acute", weight: 5, ageTrend: "falls", femaleFactor: 1, monitoredBy: ["8310-5"] },
  { snomed: "840539006", display: "COVID-19", icd10: "U07.1", icd10Display: "COVID-19, virus identified", omopConceptId: 37311061, course: "acute", weight: 4, ageTrend: "flat", femaleFactor: 1, monitoredBy: ["8310-5", "59408-5", "1988-5"] },
  { snomed: "429513001", display: "Rupture of Achilles tendon", icd10: "M66.4", icd10Display: "Spontaneous rupture of other tendons", omopConceptId: null, course: "acute", weight: 0, ageTrend: "rises", femaleFactor: 0.8, monitoredBy: [] },
];

// prettier-ignore
export const DRUGS: readonly DrugTerm[] = [
  { rxnorm: "6809", display: "metformin", atc: "A10BA02", omopConceptId: 1503297, dosage: "1000 mg orally twice daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "1545653", display: "empagliflozin", atc: "A10BK03", omopConceptId: 45774751, dosage: "10 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "274783", display: "insulin glargine", atc: "A10AE04", omopConceptId: 1502905, dosage: "20 units subcutaneously at bedtime", course: "chronic", daysSupply: 30 },
  { rxnorm: "29046", display: "lisinopril", atc: "C09AA03", omopConceptId: 1308216, dosage: "10 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "52175", display: "losartan", atc: "C09CA01", omopConceptId: 1367500, dosage: "50 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "17767", display: "amlodipine", atc: "C08CA01", omopConceptId: 1332418, dosage: "5 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "5487", display: "hydrochlorothiazide", atc: "C03AA03", omopConceptId: 974166, dosage: "12.5 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "6918", display: "metoprolol", atc: "C07AB02", omopConceptId: 1307046, dosage: "47.5 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "4603", display: "furosemide", atc: "C03CA01", omopConceptId: 956874, dosage: "40 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "9997", display: "spironolactone", atc: "C03DA01", omopConceptId: null, dosage: "25 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "83367", display: "atorvastatin", atc: "C10AA05", omopConceptId: 1545958, dosage: "20 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "36567", display: "simvastatin", atc: "C10AA01", omopConceptId: 1539403, dosage: "40 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "1191", display: "aspirin", atc: "B01AC06", omopConceptId: 1112807, dosage: "100 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "32968", display: "clopidogrel", atc: "B01AC04", omopConceptId: 1322184, dosage: "75 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "1364430", display: "apixaban", atc: "B01AF02", omopConceptId: 43013024, dosage: "5 mg orally twice daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "11289", display: "warfarin", atc: "B01AA03", omopConceptId: 1310149, dosage: "5 mg orally once daily, adjusted to INR", course: "chronic", daysSupply: 30 },
  { rxnorm: "435", display: "albuterol", atc: "R03AC02", omopConceptId: 1154343, dosage: "100 micrograms inhaled, 2 puffs as needed", course: "chronic", daysSupply: 60 },
  { rxnorm: "19831", display: "budesonide", atc: "R03BA02", omopConceptId: null, dosage: "200 micrograms inhaled twice daily", course: "chronic", daysSupply: 60 },
  { rxnorm: "69120", display: "tiotropium", atc: "R03BB04", omopConceptId: null, dosage: "18 micrograms inhaled once daily", course: "chronic", daysSupply: 30 },
  { rxnorm: "36437", display: "sertraline", atc: "N06AB06", omopConceptId: 739138, dosage: "50 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "321988", display: "escitalopram", atc: "N06AB10", omopConceptId: null, dosage: "10 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "10582", display: "levothyroxine", atc: "H03AA01", omopConceptId: 1501700, dosage: "75 micrograms orally once daily before breakfast", course: "chronic", daysSupply: 90 },
  { rxnorm: "7646", display: "omeprazole", atc: "A02BC01", omopConceptId: 923645, dosage: "20 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "40790", display: "pantoprazole", atc: "A02BC02", omopConceptId: null, dosage: "40 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "6851", display: "methotrexate", atc: "L04AX03", omopConceptId: null, dosage: "15 mg orally once weekly", course: "chronic", daysSupply: 84 },
  { rxnorm: "8640", display: "prednisone", atc: "H02AB07", omopConceptId: 1551099, dosage: "5 mg orally once daily", course: "chronic", daysSupply: 30 },
  { rxnorm: "46041", display: "alendronate", atc: "M05BA04", omopConceptId: null, dosage: "70 mg orally once weekly", course: "chronic", daysSupply: 84 },
  { rxnorm: "519", display: "allopurinol", atc: "M04AA01", omopConceptId: null, dosage: "300 mg orally once daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "37418", display: "sumatriptan", atc: "N02CC01", omopConceptId: null, dosage: "50 mg orally at migraine onset, up to 2 doses a day", course: "chronic", daysSupply: 30 },
  { rxnorm: "114477", display: "levetiracetam", atc: "N03AX14", omopConceptId: null, dosage: "500 mg orally twice daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "135447", display: "donepezil", atc: "N06DA02", omopConceptId: null, dosage: "5 mg orally at bedtime", course: "chronic", daysSupply: 90 },
  { rxnorm: "6375", display: "levodopa", atc: "N04BA01", omopConceptId: null, dosage: "100 mg orally three times daily", course: "chronic", daysSupply: 90 },
  { rxnorm: "161", display: "acetaminophen", atc: "N02BE01", omopConceptId: 1125315, dosage: "500 mg orally every 6 hours as needed", course: "acute", daysSupply: 7 },
  { rxnorm: "5640", display: "ibuprofen", atc: "M01AE01", omopConceptId: 1177480, dosage: "400 mg orally every 8 hours as needed", course: "acute", daysSupply: 7 },
  { rxnorm: "723", display: "amoxicillin", atc: "J01CA04", omopConceptId: 1713332, dosage: "1000 mg orally three times daily for 7 days", course: "acute", daysSupply: 7 },
  { rxnorm: "18631", display: "azithromycin", atc: "J01FA10", omopConceptId: null, dosage: "500 mg orally once daily for 3 days", course: "acute", daysSupply: 3 },
  { rxnorm: "82122", display: "levofloxacin", atc: "J01MA12", omopConceptId: null, dosage: "500 mg orally once daily for 7 days", course: "acute", daysSupply: 7 },
  { rxnorm: "7454", display: "nitrofurantoin", atc: "J01XE01", omopConceptId: null, dosage: "100 mg orally twice daily for 5 days", course: "acute", daysSupply: 5 },
  { rxnorm: "2551", display: "ciprofloxacin", atc: "J01MA02", omopConceptId: 1797513, dosage: "500 mg orally twice daily for 7 days", course: "acute", daysSupply: 7 },
];

/** first-choice drugs per condition (SNOMED -> RxNorm ingredients), in order of preference */
export const INDICATIONS: Readonly<Record<string, readonly string[]>> = {
  "44054006": ["6809", "1545653", "274783"],
  "46635009": ["274783"],
  "38341003": ["29046", "17767", "52175", "5487"],
  "55822004": ["83367", "36567"],
  "53741008": ["1191", "83367", "6918"],
  "22298006": ["1191", "32968", "6918", "83367"],
  "84114007": ["4603", "6918", "9997", "29046"],
  "49436004": ["1364430", "6918", "11289"],
  "230690007": ["32968", "83367"],
  "709044004": ["52175", "4603"],
  "195967001": ["435", "19831"],
  "13645005": ["69120", "435"],
  "35489007": ["36437", "321988"],
  "197480006": ["321988", "36437"],
  "40930008": ["10582"],
  "235595009": ["7646", "40790"],
  "69896004": ["6851", "8640"],
  "396275006": ["5640", "161"],
  "64859006": ["46041"],
  "90560007": ["519"],
  "37796009": ["37418", "5640"],
  "84757009": ["114477"],
  "26929004": ["135447"],
  "49049000": ["6375"],
  "68566005": ["7454"],
  "38822007": ["7454"],
  "233604007": ["723", "18631", "82122"],
  "10509002": ["161"],
  "195662009": ["161", "5640"],
  "840539006": ["161"],
  "429513001": ["161", "5640"],
};

// prettier-ignore
export const MEASUREMENTS: readonly MeasurementTerm[] = [
  { loinc: "8480-6", display: "Systolic blood pressure", unit: "mm[Hg]", category: "vital-signs", omopConceptId: 3004249, referenceLow: 90, referenceHigh: 139, mean: 124, sd: 10, decimals: 0, shifted: { "38341003": { mean: 148, sd: 12 } } },
  { loinc: "8462-4", display: "Diastolic blood pressure", unit: "mm[Hg]", category: "vital-signs", omopConceptId: 3012888, referenceLow: 60, referenceHigh: 89, mean: 78, sd: 7, decimals: 0, shifted: { "38341003": { mean: 92, sd: 8 } } },
  { loinc: "8867-4", display: "Heart rate", unit: "/min", category: "vital-signs", omopConceptId: 3027018, referenceLow: 60, referenceHigh: 100, mean: 72, sd: 9, decimals: 0, shifted: { "49436004": { mean: 96, sd: 16 } } },
  { loinc: "9279-1", display: "Respiratory rate", unit: "/min", category: "vital-signs", omopConceptId: 3024171, referenceLow: 12, referenceHigh: 20, mean: 15, sd: 2, decimals: 0, shifted: { "13645005": { mean: 21, sd: 3 }, "233604007": { mean: 24, sd: 3 } } },
  { loinc: "8310-5", display: "Body temperature", unit: "Cel", category: "vital-signs", omopConceptId: 3020891, referenceLow: 36.1, referenceHigh: 37.5, mean: 36.8, sd: 0.3, decimals: 1, shifted: { "68566005": { mean: 38.2, sd: 0.5 }, "233604007": { mean: 38.7, sd: 0.5 }, "840539006": { mean: 38.3, sd: 0.6 } } },
  { loinc: "29463-7", display: "Body weight", unit: "kg", category: "vital-signs", omopConceptId: 3025315, referenceLow: 45, referenceHigh: 100, mean: 76, sd: 13, decimals: 1, shifted: { "414916001": { mean: 108, sd: 14 } } },
  { loinc: "39156-5", display: "Body mass index (BMI) [Ratio]", unit: "kg/m2", category: "vital-signs", omopConceptId: 3038553, referenceLow: 18.5, referenceHigh: 24.9, mean: 25.5, sd: 3.5, decimals: 1, shifted: { "414916001": { mean: 35.5, sd: 4 } } },
  { loinc: "59408-5", display: "Oxygen saturation in Arterial blood by Pulse oximetry", unit: "%", category: "vital-signs", omopConceptId: null, referenceLow: 95, referenceHigh: 100, mean: 97.5, sd: 1.2, decimals: 0, shifted: { "13645005": { mean: 92, sd: 2 }, "233604007": { mean: 91, sd: 3 }, "840539006": { mean: 93, sd: 3 } } },
  { loinc: "4548-4", display: "Hemoglobin A1c/Hemoglobin.total in Blood", unit: "%", category: "laboratory", omopConceptId: 3004410, referenceLow: 4, referenceHigh: 5.6, mean: 5.3, sd: 0.3, decimals: 1, shifted: { "44054006": { mean: 7.6, sd: 1.1 }, "46635009": { mean: 7.9, sd: 1.2 } } },
  { loinc: "2345-7", display: "Glucose [Mass/volume] in Serum or Plasma", unit: "mg/dL", category: "laboratory", omopConceptId: 3004501, referenceLow: 70, referenceHigh: 99, mean: 90, sd: 9, decimals: 0, shifted: { "44054006": { mean: 158, sd: 35 }, "46635009": { mean: 170, sd: 45 } } },
  { loinc: "2093-3", display: "Cholesterol [Mass/volume] in Serum or Plasma", unit: "mg/dL", category: "laboratory", omopConceptId: 3027114, referenceLow: 0, referenceHigh: 199, mean: 188, sd: 28, decimals: 0, shifted: { "55822004": { mean: 246, sd: 28 } } },
  { loinc: "2085-9", display: "Cholesterol in HDL [Mass/volume] in Serum or Plasma", unit: "mg/dL", category: "laboratory", omopConceptId: 3007070, referenceLow: 40, referenceHigh: 100, mean: 55, sd: 12, decimals: 0, shifted: { "55822004": { mean: 42, sd: 8 } } },
  { loinc: "13457-7", display: "Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation", unit: "mg/dL", category: "laboratory", omopConceptId: null, referenceLow: 0, referenceHigh: 129, mean: 108, sd: 24, decimals: 0, shifted: { "55822004": { mean: 165, sd: 25 }, "83367": { mean: 85, sd: 18 } } },
  { loinc: "2571-8", display: "Triglyceride [Mass/volume] in Serum or Plasma", unit: "mg/dL", category: "laboratory", omopConceptId: 3022192, referenceLow: 0, referenceHigh: 149, mean: 125, sd: 35, decimals: 0, shifted: { "55822004": { mean: 210, sd: 50 } } },
  { loinc: "2160-0", display: "Creatinine [Mass/volume] in Serum or Plasma", unit: "mg/dL", category: "laboratory", omopConceptId: 3016723, referenceLow: 0.6, referenceHigh: 1.2, mean: 0.92, sd: 0.14, decimals: 2, shifted: { "709044004": { mean: 2.1, sd: 0.6 } } },
  { loinc: "33914-3", display: "Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum or Plasma by Creatinine-based formula (MDRD)", unit: "mL/min/{1.73_m2}", category: "laboratory", omopConceptId: null, referenceLow: 60, referenceHigh: 120, mean: 92, sd: 12, decimals: 0, shifted: { "709044004": { mean: 40, sd: 11 } } },
  { loinc: "718-7", display: "Hemoglobin [Mass/volume] in Blood", unit: "g/dL", category: "laboratory", omopConceptId: 3000963, referenceLow: 12, referenceHigh: 17.5, mean: 14.2, sd: 1.1, decimals: 1, shifted: { "271737000": { mean: 10.2, sd: 0.9 } } },
  { loinc: "6690-2", display: "Leukocytes [#/volume] in Blood by Automated count", unit: "10*3/uL", category: "laboratory", omopConceptId: 3000905, referenceLow: 4, referenceHigh: 11, mean: 7, sd: 1.6, decimals: 1, shifted: { "68566005": { mean: 12.5, sd: 2.5 }, "233604007": { mean: 14, sd: 3 } } },
  { loinc: "777-3", display: "Platelets [#/volume] in Blood by Automated count", unit: "10*3/uL", category: "laboratory", omopConceptId: 3024929, referenceLow: 150, referenceHigh: 400, mean: 250, sd: 50, decimals: 0 },
  { loinc: "2951-2", display: "Sodium [Moles/volume] in Serum or Plasma", unit: "mmol/L", category: "laboratory", omopConceptId: 3019550, referenceLow: 135, referenceHigh: 145, mean: 140, sd: 2.2, decimals: 0, shifted: { "84114007": { mean: 134, sd: 3 } } },
  { loinc: "2823-3", display: "Potassium [Moles/volume] in Serum or Plasma", unit: "mmol/L", category: "laboratory", omopConceptId: 3023103, referenceLow: 3.5, referenceHigh: 5.1, mean: 4.3, sd: 0.3, decimals: 1, shifted: { "709044004": { mean: 5.2, sd: 0.4 } } },
  { loinc: "1988-5", display: "C reactive protein [Mass/volume] in Serum or Plasma", unit: "mg/L", category: "laboratory", omopConceptId: 3020460, referenceLow: 0, referenceHigh: 5, mean: 2.5, sd: 1.5, decimals: 1, shifted: { "68566005": { mean: 45, sd: 20 }, "233604007": { mean: 90, sd: 35 }, "840539006": { mean: 35, sd: 20 }, "69896004": { mean: 18, sd: 8 } } },
  { loinc: "3016-3", display: "Thyrotropin [Units/volume] in Serum or Plasma", unit: "m[IU]/L", category: "laboratory", omopConceptId: 3009201, referenceLow: 0.4, referenceHigh: 4, mean: 1.9, sd: 0.7, decimals: 2, shifted: { "40930008": { mean: 7.5, sd: 2.5 } } },
  { loinc: "1742-6", display: "Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma", unit: "U/L", category: "laboratory", omopConceptId: 3006923, referenceLow: 7, referenceHigh: 56, mean: 24, sd: 8, decimals: 0, shifted: { "6851": { mean: 48, sd: 15 } } },
  { loinc: "6301-6", display: "INR in Platelet poor plasma by Coagulation assay", unit: "{INR}", category: "laboratory", omopConceptId: 3022217, referenceLow: 0.8, referenceHigh: 1.2, mean: 1, sd: 0.07, decimals: 1, shifted: { "11289": { mean: 2.5, sd: 0.4 } } },
];

/** the observations recorded for any patient when the conditions call for none (or too few) */
export const ROUTINE_MEASUREMENTS: readonly string[] = [
  "8480-6",
  "8462-4",
  "8867-4",
  "29463-7",
  "39156-5",
  "2345-7",
  "718-7",
  "2093-3",
  "2160-0",
  "777-3",
];

/** the codes of the pharmacovigilance question "tendon rupture after ciprofloxacin for a UTI?" */
export const PHARMACOVIGILANCE = {
  urinaryTractInfection: "68566005",
  ciprofloxacin: "2551",
  tendonRupture: "429513001",
} as const;

/** the term of a code, by `key`; an unknown code throws "unknown <what> <code>" */
function lookup<T>(items: readonly T[], key: keyof T, what: string): (code: string) => T {
  const byCode = new Map(items.map((item) => [item[key], item]));
  return (code) => {
    const term = byCode.get(code as T[keyof T]);
    if (!term) throw new Error(`unknown ${what} ${code}`);
    return term;
  };
}

export const condition = lookup(CONDITIONS, "snomed", "SNOMED CT condition");
export const drug = lookup(DRUGS, "rxnorm", "RxNorm ingredient");
export const measurement = lookup(MEASUREMENTS, "loinc", "LOINC code");
