/**
 * Layer l2: the HealthDCAT-AP catalogue. Each dataset is defined by the patients it covers
 * (a rule on the patient profile), so its recordCount is the true number of patients linked to
 * it with INCLUDES.
 */
import { organisation, participantId } from "./organisations";
import { HOLDERS, type Holder, type PatientProfile } from "./population";
import { type RecordBuffer } from "./records";
import { PHARMACOVIGILANCE, drug } from "./terminology";

const EU = "http://publications.europa.eu/resource/authority";
const STANDARDS = {
  fhir: "http://hl7.org/fhir/R4",
  omop: "https://ohdsi.github.io/CommonDataModel/cdm54.html",
} as const;
const LEGAL_BASIS = "Regulation (EU) 2025/327 (EHDS) Art. 53; GDPR Art. 9(2)(j)";

/** the one catalogue node: the seeded datasets and every published one hang under it (CONTAINS) */
export const CATALOGUE_ID = "catalogue-health-dataspace";

interface DatasetSpec {
  slug: string;
  holder: Holder;
  title: string;
  description: string;
  keywords: string[];
  purpose: string;
  populationCoverage: string;
  standards: (keyof typeof STANDARDS)[];
  sensitiveData: boolean;
  includes: (p: PatientProfile) => boolean;
}

const has = (p: PatientProfile, ...snomed: string[]) => p.conditions.some((c) => snomed.includes(c));
const takesAtc = (p: PatientProfile, prefix: string) =>
  p.prescriptions.some((r) => drug(r.rxnorm).atc.startsWith(prefix));

// prettier-ignore
const DATASETS: readonly DatasetSpec[] = [
  { slug: "alphaklinik-ehr", holder: HOLDERS.berlin, title: "AlphaKlinik Berlin electronic health records", description: "Encounters, diagnoses, medication orders and measurements of adult patients treated at AlphaKlinik Berlin, as FHIR R4 resources.", keywords: ["EHR", "FHIR", "Berlin"], purpose: "Scientific research related to health or care sectors", populationCoverage: "Adult in- and outpatients of AlphaKlinik Berlin, 2019–2025", standards: ["fhir"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.berlin },
  { slug: "lmc-ehr", holder: HOLDERS.limburg, title: "Limburg Medical Centre clinical records", description: "Clinical records of adult patients of Limburg Medical Centre (Maastricht region), as FHIR R4 resources.", keywords: ["EHR", "FHIR", "Limburg"], purpose: "Scientific research related to health or care sectors", populationCoverage: "Adult patients of Limburg Medical Centre, 2019–2025", standards: ["fhir"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.limburg },
  { slug: "lmc-omop", holder: HOLDERS.limburg, title: "Limburg Medical Centre OMOP research database", description: "The clinical records of Limburg Medical Centre mapped to the OMOP Common Data Model v5.4 for federated analyses.", keywords: ["OMOP", "CDM", "federated analytics"], purpose: "Statistics and scientific research", populationCoverage: "All patients of Limburg Medical Centre, 2019–2025", standards: ["omop"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.limburg },
  { slug: "alphaklinik-diabetes", holder: HOLDERS.berlin, title: "Type 2 diabetes cohort, AlphaKlinik Berlin", description: "Patients with type 2 diabetes mellitus: HbA1c and glucose series, antidiabetic prescriptions and comorbidities.", keywords: ["diabetes", "HbA1c", "metformin"], purpose: "Scientific research related to health or care sectors", populationCoverage: "Patients of AlphaKlinik Berlin diagnosed with type 2 diabetes", standards: ["fhir", "omop"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.berlin && has(p, "44054006") },
  { slug: "lmc-cardiovascular", holder: HOLDERS.limburg, title: "Cardiovascular cohort, Limburg Medical Centre", description: "Patients with hypertension, coronary disease, heart failure, atrial fibrillation or stroke, with blood pressure, lipids and cardiovascular medication.", keywords: ["cardiology", "hypertension", "heart failure"], purpose: "Scientific research related to health or care sectors", populationCoverage: "Patients of Limburg Medical Centre with cardiovascular disease", standards: ["fhir", "omop"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.limburg && has(p, "38341003", "53741008", "22298006", "84114007", "49436004", "230690007") },
  { slug: "alphaklinik-respiratory", holder: HOLDERS.berlin, title: "Respiratory disease cohort, AlphaKlinik Berlin", description: "Asthma, COPD and pneumonia patients with oxygen saturation, respiratory rate and inhaled therapy.", keywords: ["asthma", "COPD", "pneumonia"], purpose: "Scientific research related to health or care sectors", populationCoverage: "Patients of AlphaKlinik Berlin with respiratory disease", standards: ["fhir"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.berlin && has(p, "195967001", "13645005", "233604007") },
  { slug: "alphaklinik-fluoroquinolone-safety", holder: HOLDERS.berlin, title: "Fluoroquinolone exposure and tendon disorders, AlphaKlinik Berlin", description: "Patients treated with a fluoroquinolone (ciprofloxacin, levofloxacin) or diagnosed with a tendon rupture, for drug safety monitoring.", keywords: ["pharmacovigilance", "ciprofloxacin", "tendon rupture"], purpose: "Ensuring high levels of quality and safety of health care and of medicinal products", populationCoverage: "Patients of AlphaKlinik Berlin exposed to fluoroquinolones or with tendon rupture", standards: ["fhir", "omop"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.berlin && (takesAtc(p, "J01MA") || has(p, PHARMACOVIGILANCE.tendonRupture)) },
  { slug: "lmc-urinary-infections", holder: HOLDERS.limburg, title: "Urinary tract infections and antibiotic prescribing, Limburg Medical Centre", description: "Urinary tract infections and cystitis episodes with their antibiotic treatment, inflammation markers and outcomes.", keywords: ["urinary tract infection", "antibiotics", "antimicrobial stewardship"], purpose: "Ensuring high levels of quality and safety of health care and of medicinal products", populationCoverage: "Patients of Limburg Medical Centre with a urinary tract infection", standards: ["fhir", "omop"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.limburg && has(p, "68566005", "38822007") },
  { slug: "alphaklinik-mental-health", holder: HOLDERS.berlin, title: "Depression and anxiety cohort, AlphaKlinik Berlin", description: "Patients with depressive or anxiety disorders and their antidepressant treatment.", keywords: ["mental health", "depression", "anxiety"], purpose: "Scientific research related to health or care sectors", populationCoverage: "Patients of AlphaKlinik Berlin with depression or anxiety", standards: ["fhir"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.berlin && has(p, "35489007", "197480006") },
  { slug: "lmc-renal-metabolic", holder: HOLDERS.limburg, title: "Renal and metabolic disease cohort, Limburg Medical Centre", description: "Chronic kidney disease, diabetes, gout and obesity with kidney function and metabolic laboratory series.", keywords: ["chronic kidney disease", "eGFR", "metabolic"], purpose: "Statistics and scientific research", populationCoverage: "Patients of Limburg Medical Centre with renal or metabolic disease", standards: ["omop"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.limburg && has(p, "709044004", "44054006", "46635009", "90560007", "414916001") },
  { slug: "alphaklinik-covid19", holder: HOLDERS.berlin, title: "COVID-19 cases, AlphaKlinik Berlin", description: "Confirmed COVID-19 cases with vital signs, oxygen saturation and inflammation markers.", keywords: ["COVID-19", "SARS-CoV-2", "infectious disease"], purpose: "Public interest in the area of public and occupational health", populationCoverage: "Patients of AlphaKlinik Berlin with confirmed COVID-19", standards: ["fhir"], sensitiveData: true, includes: (p) => p.holder === HOLDERS.berlin && has(p, "840539006") },
];

export const datasetId = (slug: string) => `dataset-${slug}`;
export const datasetTitle = (slug: string) => DATASETS.find((d) => d.slug === slug)?.title ?? datasetId(slug);
export const DATASET_IDS: readonly string[] = DATASETS.map((d) => datasetId(d.slug));

/** ids of the datasets that cover this patient */
export function datasetsOf(profile: PatientProfile): string[] {
  return DATASETS.filter((d) => d.includes(profile)).map((d) => datasetId(d.slug));
}

/** the data services through which holders expose their datasets */
// prettier-ignore
const SERVICES = [
  { slug: "alphaklinik-fhir", holder: HOLDERS.berlin, title: "AlphaKlinik Berlin FHIR R4 API", endpointUrl: "https://alpha-klinik.de/fhir/r4", standard: "fhir" },
  { slug: "lmc-fhir", holder: HOLDERS.limburg, title: "Limburg Medical Centre FHIR R4 API", endpointUrl: "https://lmc.nl/fhir/r4", standard: "fhir" },
  { slug: "lmc-omop", holder: HOLDERS.limburg, title: "Limburg Medical Centre OMOP federated query service", endpointUrl: "https://lmc.nl/omop/query", standard: "omop" },
] as const;

/** writes the catalogue; `recordCounts` maps dataset ids to the number of patients they cover */
export function writeCatalogue(out: RecordBuffer, recordCounts: ReadonlyMap<string, number>): void {
  out.node("Catalogue", CATALOGUE_ID, {
    title: "Health Dataspace Hub national health data catalogue",
    description:
      "HealthDCAT-AP catalogue of the datasets that data holders make available for secondary use.",
    publisher: organisation("medreg").displayName,
    profile: "HealthDCAT-AP 2.1",
    language: "en",
  });
  out.edge(CATALOGUE_ID, "PUBLISHED_BY", participantId("medreg"));

  for (const d of DATASETS) {
    const id = datasetId(d.slug);
    out.node("HealthDataset", id, {
      title: d.title,
      description: d.description,
      publisher: organisation(d.holder).displayName,
      license: "https://creativecommons.org/licenses/by-nc/4.0/",
      datasetType: `${EU}/dataset-type/PERSONAL_DATA`,
      legalBasis: LEGAL_BASIS,
      recordCount: recordCounts.get(id) ?? 0,
      personalData: true,
      sensitiveData: d.sensitiveData,
      purpose: d.purpose,
      populationCoverage: d.populationCoverage,
      conformsTo: d.standards.map((s) => STANDARDS[s]),
      keywords: d.keywords,
      theme: `${EU}/data-theme/HEAL`,
      holder: d.holder,
    });
    out.edge(CATALOGUE_ID, "CONTAINS", id);
    out.edge(id, "HELD_BY", participantId(d.holder));

    const distribution = `distribution-${d.slug}`;
    const omopOnly = d.standards.length === 1 && d.standards[0] === "omop";
    out.node("Distribution", distribution, {
      title: `${d.title} (${omopOnly ? "OMOP CDM tables" : "FHIR bulk export"})`,
      format: omopOnly ? "CSV" : "FHIR NDJSON",
      mediaType: omopOnly ? "text/csv" : "application/fhir+ndjson",
      conformsTo: d.standards.map((s) => STANDARDS[s]),
      accessRights: `${EU}/access-right/NON_PUBLIC`,
    });
    out.edge(id, "HAS_DISTRIBUTION", distribution);
  }

  for (const s of SERVICES) {
    const id = `dataservice-${s.slug}`;
    out.node("DataService", id, {
      title: s.title,
      endpointUrl: s.endpointUrl,
      conformsTo: [STANDARDS[s.standard]],
      holder: s.holder,
    });
    for (const d of DATASETS) {
      if (d.holder === s.holder && d.standards.includes(s.standard))
        out.edge(id, "SERVES", datasetId(d.slug));
    }
  }
}
