/**
 * Every statutory period the access body works with, in one place, each with the article it comes
 * from and how far its citation was checked against the text of Regulation (EU) 2025/327 (EHDS).
 *
 * How the citations were checked (November 2026, with the project's search tool over stored
 * public copies; no live access to EUR-Lex):
 * - "verified": the article's own words were read in a copy of the regulation's text (CELEX
 *   32025R0327, per-article copies of the Official Journal text).
 * - "secondary": the words were read as a quotation of the article in a public document about the
 *   regulation (the HealthData@EU "Technical specifications for HDABs on the implementation of a
 *   common IT infrastructure", Annex 1 "Related legal framework"), not in the regulation itself.
 * - "unverified": the text of the article could not be found with the tool. The value is kept
 *   because the project's brief states it, and it is marked so nobody mistakes it for a checked
 *   reading. Replace the mark when someone has read the Official Journal text.
 *
 * How periods are counted: COUNTING_RULES below (calendar.ts).
 */

/**
 * The other articles this module and its views cite, and how each was checked:
 * - Art. 53(1)(a)–(e) purposes, Art. 58(1)(a)–(g) public information, Art. 61(1), (3), (4) duties of
 *   data users: read in the text (per-article copies of CELEX 32025R0327).
 * - Art. 66(3) and Art. 68(1)(c) (pseudonymised data only where anonymised data cannot serve the
 *   purpose): read in the text of Art. 66.
 * - Art. 67 (applications), Art. 69 (data requests), Art. 71 (opt-out), Art. 72 (trusted holders),
 *   Art. 73 (secure processing environments): their subjects read in cross-references of Art. 58, 61
 *   and 72; their time limits are not used except as marked below.
 * - Art. 57(1)(j)(ii)–(iii) (publication of applications and decisions): secondary (quoted in the
 *   HealthData@EU technical specifications).
 * - Art. 53(1)(f): not in the excerpt found; its wording in PURPOSES is from memory of the final text.
 * - GDPR legal bases named in the compliance summary: from the literature, not checked here.
 */

type PeriodUnit = "months" | "weeks" | "days" | "workingDays" | "years";

interface StatutoryPeriod {
  id: string;
  label: string;
  amount: number;
  unit: PeriodUnit;
  /** the article that sets it, e.g. "Art. 68(4)" */
  article: string;
  /** what the article says, in our words */
  rule: string;
  verification: "verified" | "secondary" | "unverified";
  note: string;
}

const SECONDARY_SOURCE =
  "Quoted in the HealthData@EU 'Technical specifications for HDABs on the implementation of a common IT infrastructure', Annex 1.";

export const PERIODS = {
  applicationDecision: {
    id: "applicationDecision",
    label: "Decision on a data access application",
    amount: 3,
    unit: "months",
    article: "Art. 68(4)",
    rule: "The access body issues or refuses a data permit within three months of receiving a complete application.",
    verification: "secondary",
    note: SECONDARY_SOURCE,
  },
  applicationExtension: {
    id: "applicationExtension",
    label: "Extension of the decision period (once, with reasons)",
    amount: 3,
    unit: "months",
    article: "Art. 68(4)",
    rule: "The access body may extend the decision period once, by up to three further months, telling the applicant why.",
    verification: "unverified",
    note:
      "The extension clause of the final text was not found with the search tool. The Commission's proposal (COM(2022) 197, Art. 46(3)) " +
      "had two plus two months; the brief of this project states three plus three. Kept at three months, to be confirmed.",
  },
  applicationCompletion: {
    id: "applicationCompletion",
    label: "Completing an incomplete application",
    amount: 4,
    unit: "weeks",
    article: "Art. 68(4)",
    rule: "When an application is incomplete, the applicant is given four weeks to complete it.",
    verification: "secondary",
    note: SECONDARY_SOURCE,
  },
  dataRequestAnswer: {
    id: "dataRequestAnswer",
    label: "Answer to a health data request (anonymised statistics)",
    amount: 3,
    unit: "months",
    article: "Art. 69",
    rule: "The access body assesses a health data request and, where possible, provides the anonymised statistical result within three months.",
    verification: "unverified",
    note:
      "The time limit of Art. 69 of the final text was not found with the search tool (the proposal's Art. 47(3) said two months). " +
      "Three months is assumed, in line with Art. 68(4); to be confirmed.",
  },
  resultPublication: {
    id: "resultPublication",
    label: "Publication of results by the data user",
    amount: 18,
    unit: "months",
    article: "Art. 61(4)",
    rule:
      "Data users make public the results or output of secondary use within 18 months of completing the processing in the secure " +
      "processing environment, or of receiving the answer to a data request.",
    verification: "verified",
    note: "Read in the text of Art. 61(4), CELEX 32025R0327.",
  },
  registerPublication: {
    id: "registerPublication",
    label: "Publication of permits, approved requests and refusals (with reasons)",
    amount: 30,
    unit: "workingDays",
    article: "Art. 57(1)(j)(iii)",
    rule:
      "The access body makes public all data permits issued, data requests approved and refusals, with their justification, within 30 working days. " +
      "Applications and requests are made public without undue delay after they are received (Art. 57(1)(j)(ii)). This hub publishes both at once.",
    verification: "secondary",
    note: SECONDARY_SOURCE,
  },
  activityReport: {
    id: "activityReport",
    label: "Activity report of the access body",
    amount: 2,
    unit: "years",
    article: "Art. 59",
    rule: "The access body publishes an activity report every two years.",
    verification: "secondary",
    note:
      "The two-year rhythm is named as the 'HDAB biennial report' in the HealthData@EU technical specifications; the text of Art. 59 itself was not read. " +
      "The report can be generated for any period.",
  },
  permitMaxDuration: {
    id: "permitMaxDuration",
    label: "Longest duration of a data permit",
    amount: 10,
    unit: "years",
    article: "Art. 68",
    rule: "A data permit is issued for the time the purposes need, at most ten years.",
    verification: "unverified",
    note: "Recalled from the final text; the paragraph was not found with the search tool. Used only as an upper bound on the permit form.",
  },
} as const satisfies Record<string, StatutoryPeriod>;

export const PERIOD_LIST: StatutoryPeriod[] = Object.values(PERIODS);

/** How this hub counts periods (shown with them). */
export const COUNTING_RULES =
  "Calendar months and days in Europe/Berlin, by Regulation (EEC, Euratom) No 1182/71 Art. 3: the day of the event is not counted; " +
  "a period of months ends at the end of the same date in the last month (or that month's last day); a period ending on a Saturday, " +
  "Sunday or German public holiday ends on the next working day. The decision clock stops while an information request to the applicant " +
  "is open; the deadline then moves by the number of calendar days it was stopped.";

/** The purposes of secondary use, Art. 53(1) (a)–(f). */
export const PURPOSES = [
  {
    code: "publicHealth",
    point: "Art. 53(1)(a)",
    label: "Public interest in public or occupational health",
    description:
      "Protection against serious cross-border threats to health, public health surveillance, quality and safety of healthcare, of medicinal products and medical devices.",
  },
  {
    code: "policyMaking",
    point: "Art. 53(1)(b)",
    label: "Policymaking and regulatory activities",
    description:
      "Supporting public sector bodies and Union institutions, including regulatory authorities, in the health or care sector.",
  },
  {
    code: "officialStatistics",
    point: "Art. 53(1)(c)",
    label: "Statistics",
    description:
      "National, multinational and Union-level official statistics related to the health or care sectors.",
  },
  {
    code: "education",
    point: "Art. 53(1)(d)",
    label: "Education and teaching",
    description: "Education or teaching in health or care sectors at vocational or higher education level.",
  },
  {
    code: "scientificResearch",
    point: "Art. 53(1)(e)",
    label: "Scientific research",
    description:
      "Scientific research related to health or care sectors that contributes to public health or health technology assessment, or ensures quality and safety of care, medicinal products or medical devices.",
  },
  {
    code: "improvementOfCare",
    point: "Art. 53(1)(f)",
    label: "Improvement of the delivery of care",
    description:
      "Improving the delivery of care, the optimisation of treatment and the provision of healthcare based on data of other natural persons.",
  },
] as const;

export type PurposeCode = (typeof PURPOSES)[number]["code"];
export const PURPOSE_CODES = PURPOSES.map((p) => p.code) as [PurposeCode, ...PurposeCode[]];

/** Purpose values used by the marketplace (ODRL purpose constraints) mapped to Art. 53(1) codes. */
const PURPOSE_ALIASES: Record<string, PurposeCode> = {
  healthCareAndMedicinalProductSafety: "publicHealth",
};

export function purposeCode(value: string): PurposeCode | undefined {
  if ((PURPOSE_CODES as readonly string[]).includes(value)) return value as PurposeCode;
  return PURPOSE_ALIASES[value];
}

export function purposeLabel(code: string): string {
  const p = PURPOSES.find((x) => x.code === code);
  return p ? `${p.label} (${p.point})` : code;
}
