import type { PurposeCode } from "./periods";

/**
 * The data of the access body's demonstration records (seed.ts tells their stories): the permit
 * conditions, the texts of the demonstration cases and the titles of purposes in application titles.
 * Days are offsets from the day of seeding, so a new installation always shows fresh, due-soon and
 * overdue work.
 */

export const SPE = "MedReg secure processing environment";
export const STANDARD_CONDITIONS = [
  "Processing only inside the MedReg secure processing environment (Art. 73)",
  "No attempt to re-identify the natural persons the data relate to (Art. 61(3))",
  "Outputs leave the environment only after the access body's output check",
  "A yearly progress report to the access body",
];

export const REVOCATION_REASON =
  "Revoked by the access body: the permit's conditions were not met (processing outside the secure processing environment)";

export const PURPOSE_TITLES: Record<PurposeCode, string> = {
  publicHealth: "Public health and safety",
  policyMaking: "Policymaking",
  officialStatistics: "Statistics",
  education: "Education",
  scientificResearch: "Research",
  improvementOfCare: "Improvement of care",
};

/** the demonstration applications (their clocks and histories are told in seed-demo.ts) */
export const DEMO_APPLICATIONS = {
  respiratory: {
    title: "Respiratory outcomes after COVID-19 infection",
    summary:
      "Cohort study of respiratory disease outcomes in the year after a confirmed COVID-19 infection, compared with matched patients without infection.",
    purpose: "scientificResearch" as PurposeCode,
    datasets: ["dataset-alphaklinik-respiratory", "dataset-alphaklinik-covid19"],
  },
  renal: {
    title: "Renal function trajectories in chronic kidney disease",
    summary:
      "Trajectories of eGFR in patients with chronic kidney disease and diabetes, to inform screening intervals.",
    purpose: "scientificResearch" as PurposeCode,
    datasets: ["dataset-lmc-renal-metabolic"],
  },
  antidepressants: {
    title: "Persistence with antidepressant treatment",
    summary:
      "How long patients stay on a first antidepressant and what predicts switching or stopping, using pseudonymised records.",
    purpose: "scientificResearch" as PurposeCode,
    datasets: ["dataset-alphaklinik-mental-health"],
  },
  cardiovascular: {
    title: "Cross-border cardiovascular risk prediction",
    summary:
      "Development and validation of a cardiovascular risk model on linked data of two data holders in two Member States.",
    purpose: "scientificResearch" as PurposeCode,
    datasets: ["dataset-lmc-cardiovascular", "dataset-alphaklinik-diabetes"],
  },
  antibiotics: {
    title: "Antibiotic prescribing quality indicators",
    summary:
      "Quality indicators of antibiotic prescribing for urinary tract infections, for a stewardship programme.",
    purpose: "publicHealth" as PurposeCode,
    datasets: ["dataset-lmc-urinary-infections"],
  },
};
