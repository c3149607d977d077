/**
 * Pulled FHIR data as table rows: a Bundle's entries (or one resource, or an array of them), each
 * reduced to type, id, patient, code, text, value, status and date. Reads standard FHIR R4 shapes
 * (`code.coding`, `valueQuantity`, `subject.reference`) and the flattened records of the
 * embedded dataspace's graph source (`code`, `display`, `value`, `unit`, `patientId`).
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

const SYSTEMS: [RegExp, string][] = [
  [/loinc\.org/i, "LOINC"],
  [/snomed/i, "SNOMED CT"],
  [/rxnorm/i, "RxNorm"],
  [/icd-?10/i, "ICD-10"],
  [/atc/i, "ATC"],
  [/unitsofmeasure|ucum/i, "UCUM"],
];

export function systemLabel(system: string): string {
  return SYSTEMS.find(([re]) => re.test(system))?.[1] ?? system;
}

function firstCoding(code: unknown): Rec | undefined {
  if (!isRec(code)) return undefined;
  return Array.isArray(code.coding) ? code.coding.find(isRec) : undefined;
}

function concept(v: unknown): string {
  if (typeof v === "string") return v;
  if (!isRec(v)) return "";
  return str(v.text) || str(firstCoding(v)?.display) || str(firstCoding(v)?.code);
}

function quantity(v: unknown): string {
  if (!isRec(v)) return "";
  const value = str(v.value);
  return value ? `${value} ${str(v.unit) || str(v.code)}`.trim() : "";
}

function reference(v: unknown): string {
  return isRec(v) ? str(v.reference) || str(v.display) : str(v);
}

export function fhirRow(resource: Rec, index: number) {
  const type = str(resource.resourceType) || "Resource";
  const coding = firstCoding(resource.code);
  const code = typeof resource.code === "string" ? resource.code : str(coding?.code);
  const system = str(resource.codeSystem) || str(coding?.system);
  let text =
    str(resource.display) ||
    concept(resource.code) ||
    str(resource.classDisplay) ||
    concept(resource.medicationCodeableConcept) ||
    str(resource.reasonDisplay);
  if (type === "Patient") {
    const born = str(resource.birthDate).slice(0, 4);
    text = [str(resource.gender), born ? `born ${born}` : "", str(resource.country)]
      .filter(Boolean)
      .join(", ");
  }
  if (type === "Encounter" && str(resource.reasonDisplay) && text !== str(resource.reasonDisplay)) {
    text = `${text} · ${str(resource.reasonDisplay)}`;
  }
  const unit = str(resource.unit);
  let value =
    (str(resource.value) ? `${str(resource.value)}${unit ? ` ${unit}` : ""}` : "") ||
    quantity(resource.valueQuantity) ||
    str(resource.valueString) ||
    concept(resource.valueCodeableConcept) ||
    str(resource.dosageText);
  const interpretation = str(resource.interpretation);
  if (value && (interpretation === "H" || interpretation === "L")) {
    value = `${value} (${interpretation === "H" ? "high" : "low"})`;
  }
  const period = isRec(resource.period) ? resource.period : undefined;
  const date =
    str(resource.effectiveDateTime) ||
    str(resource.onsetDate) ||
    str(resource.onsetDateTime) ||
    str(resource.periodStart) ||
    str(period?.start) ||
    str(resource.authoredOn) ||
    str(resource.recordedDate) ||
    str(resource.birthDate);
  const status =
    concept(resource.clinicalStatus) || str(resource.status) || concept(resource.verificationStatus);
  const id = str(resource.id);
  return {
    key: `${type}/${id || index}/${index}`,
    resourceType: type,
    id,
    patient:
      type === "Patient"
        ? str(resource.graphId) || id
        : str(resource.patientId) || reference(resource.subject) || reference(resource.patient),
    code,
    system: system ? systemLabel(system) : "",
    text,
    value,
    status,
    date,
  };
}

export function fhirTable(data: unknown) {
  let resources: Rec[] = [];
  /** "Bundle (collection)", "Patient", ... */
  let shape = "JSON";
  let total: number | null = null;
  if (Array.isArray(data)) {
    resources = data.filter(isRec);
    shape = "JSON array";
  } else if (isRec(data) && data.resourceType === "Bundle") {
    const entries = Array.isArray(data.entry) ? data.entry : [];
    resources = entries.map((e) => (isRec(e) && isRec(e.resource) ? e.resource : null)).filter(isRec);
    shape = `Bundle${str(data.type) ? ` (${str(data.type)})` : ""}`;
    total = typeof data.total === "number" ? data.total : null;
  } else if (isRec(data) && typeof data.resourceType === "string") {
    resources = [data];
    shape = data.resourceType;
  }
  const rows = resources.map(fhirRow);
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.resourceType, (counts.get(r.resourceType) ?? 0) + 1);
  const types = [...counts.entries()].map(([type, count]) => ({ type, count }));
  return { shape, total, rows, types };
}

/** dates as "2024-03-05" or "2024-03-05 14:05" (as recorded; no zone conversion) */
export function shortDate(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?/.exec(value);
  if (!m) return value;
  return m[2] ? `${m[1]} ${m[2]}` : m[1];
}
