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
  /** fields the message is about (marked invalid in the form) */
  fields: PublishField[];
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

const lines = (v: string | undefined) =>
  (v ?? "")
    .split(/[\r\n]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** the JSON body for catalogue.create(); empty optional fields are left out */
export function toDatasetInput(values: PublishValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const text = (f: PublishField) => {
    const v = values[f]?.trim();
    if (v) body[f] = v;
  };
  for (const f of [
    "id",
    "title",
    "description",
    "publisher",
    "theme",
    "license",
    "datasetType",
    "legalBasis",
    "purpose",
    "populationCoverage",
  ] as const) {
    text(f);
  }
  // id and title go through as typed so the service reports them missing, not us
  body.id = values.id?.trim() ?? "";
  body.title = values.title?.trim() ?? "";
  const count = values.recordCount?.trim();
  if (count) body.recordCount = /^\d+$/.test(count) ? Number(count) : count;
  const conformsTo = lines(values.conformsTo);
  if (conformsTo.length) body.conformsTo = conformsTo;
  const keywords = (values.keywords ?? "")
    .split(/[,\r\n]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (keywords.length) body.keywords = keywords;
  body.personalData = values.personalData === "on";
  body.sensitiveData = values.sensitiveData === "on";
  return body;
}

/** which fields an error message of the service names ("license: Invalid URL", "id and title are required") */
export function fieldsOfMessage(message: string): PublishField[] {
  if (/^id and title are required/i.test(message)) return ["id", "title"];
  const m = /^([A-Za-z]+)(?:\.\d+)?:/.exec(message);
  if (m && (PUBLISH_FIELDS as readonly string[]).includes(m[1])) return [m[1] as PublishField];
  if (/already exists/i.test(message)) return ["id"];
  return [];
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
