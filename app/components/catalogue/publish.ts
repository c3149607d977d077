import type { FieldError } from "../../types";

/**
 * The publish form's fields and how a submitted form becomes the HealthDataset body that
 * catalogue.create() validates (server-side validation stays in the service: one set of rules).
 */

export const PUBLISH_FIELDS = [
  "id",
  "title",
  "description",
  "publisher",
  "theme",
  "license",
  "datasetType",
  "legalBasis",
  "purpose",
  "recordCount",
  "populationCoverage",
  "conformsTo",
  "keywords",
  "personalData",
  "sensitiveData",
] as const;
export type PublishField = (typeof PUBLISH_FIELDS)[number];

export type PublishValues = Partial<Record<PublishField, string>>;

export interface PublishResult {
  error: string;
  /** the fields the service named as wrong, each with its own message (marked invalid in the form) */
  fields: { field: PublishField; message: string }[];
  values: PublishValues;
}

export function formValues(form: FormData): PublishValues {
  const values: PublishValues = {};
  for (const f of PUBLISH_FIELDS) {
    const v = form.get(f);
    if (typeof v === "string") values[f] = v;
  }
  return values;
}

/**
 * The identifier a title makes: lower case, letters and digits, words joined by "-", at most 80
 * characters ("Diabetes cohort 2019–2025" → "diabetes-cohort-2019-2025"); empty for an empty title.
 */
export function identifierFrom(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
}

const list = (v: string | undefined, separator: RegExp) =>
  (v ?? "")
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);

/** the fields that are not sent as trimmed text */
const NOT_TEXT = new Set<PublishField>([
  "recordCount",
  "conformsTo",
  "keywords",
  "personalData",
  "sensitiveData",
]);

/** the JSON body for catalogue.create(); empty optional fields are left out */
export function toDatasetInput(values: PublishValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const text = (f: PublishField) => {
    const v = values[f]?.trim();
    if (v) body[f] = v;
  };
  for (const f of PUBLISH_FIELDS) if (!NOT_TEXT.has(f)) text(f);
  // id and title go through as typed so the service reports them missing, not us
  // an identifier left empty is made from the title (the service still checks it and refuses a taken one)
  body.id = values.id?.trim() || identifierFrom(values.title ?? "");
  body.title = values.title?.trim() ?? "";
  const count = values.recordCount?.trim();
  if (count) body.recordCount = /^\d+$/.test(count) ? Number(count) : count;
  const conformsTo = list(values.conformsTo, /[\r\n]+/);
  if (conformsTo.length) body.conformsTo = conformsTo;
  const keywords = list(values.keywords, /[,\r\n]+/);
  if (keywords.length) body.keywords = keywords;
  body.personalData = values.personalData === "on";
  body.sensitiveData = values.sensitiveData === "on";
  return body;
}

/** the service's structured field errors ("conformsTo.0": the conformsTo field) as the form's fields */
export function formFieldErrors(errors: readonly FieldError[]): PublishResult["fields"] {
  const out: PublishResult["fields"] = [];
  for (const e of errors) {
    const field = e.path.split(".")[0];
    if ((PUBLISH_FIELDS as readonly string[]).includes(field) && !out.some((o) => o.field === field))
      out.push({ field: field as PublishField, message: e.message });
  }
  return out;
}

export const LICENSE_SUGGESTIONS = [
  "https://creativecommons.org/licenses/by/4.0/",
  "https://creativecommons.org/licenses/by-nc/4.0/",
  "https://creativecommons.org/publicdomain/zero/1.0/",
  "https://joinup.ec.europa.eu/licence/european-union-public-licence-version-12-or-later-eupl",
];

export const DATASET_TYPE_SUGGESTIONS = [
  "http://publications.europa.eu/resource/authority/dataset-type/PERSONAL_DATA",
  "http://publications.europa.eu/resource/authority/dataset-type/STATISTICAL",
  "http://publications.europa.eu/resource/authority/dataset-type/SYNTHETIC_DATA",
  "http://publications.europa.eu/resource/authority/dataset-type/TEST_DATA",
];

export const LEGAL_BASIS_SUGGESTIONS = [
  "EHDS Art. 53(1)(e) scientific research",
  "EHDS Art. 53(1)(a) public interest in public and occupational health",
  "GDPR Art. 6(1)(e) and Art. 9(2)(j)",
  "GDPR Art. 9(2)(a) explicit consent",
];

export const CONFORMS_TO_SUGGESTIONS = [
  "http://hl7.org/fhir/R4",
  "https://ohdsi.github.io/CommonDataModel/cdm54.html",
];
