import { z } from "zod";
import { ORGANISATIONS } from "../auth/personas";
import type { GraphNode, PropertyValue } from "../graph";

/**
 * Graph nodes of layer l3 as FHIR R4 resources. Graph ids are valid FHIR ids and are used as such;
 * the generator's resource UUIDs become identifiers. Holder records name their data holder's
 * dataspace identity in `meta.source`; self-measured observations carry the self-measured tag and
 * the patient as performer.
 */

export const SYSTEMS = {
  loinc: "http://loinc.org",
  ucum: "http://unitsofmeasure.org",
  snomed: "http://snomed.info/sct",
  icd10: "http://hl7.org/fhir/sid/icd-10",
  rxnorm: "http://www.nlm.nih.gov/research/umls/rxnorm",
  atc: "http://www.whocc.no/atc",
  actCode: "http://terminology.hl7.org/CodeSystem/v3-ActCode",
  obsCategory: "http://terminology.hl7.org/CodeSystem/observation-category",
  conditionClinical: "http://terminology.hl7.org/CodeSystem/condition-clinical",
  conditionVerification: "http://terminology.hl7.org/CodeSystem/condition-ver-status",
  conditionCategory: "http://terminology.hl7.org/CodeSystem/condition-category",
  interpretation: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation",
  uuid: "urn:ietf:rfc:3986",
} as const;

/** How a self-measured observation is marked (meta.tag). */
export const SELF_MEASURED_TAG = {
  system: "urn:health-dataspace-hub:data-origin",
  code: "self-measured",
  display: "Self-measured by the patient",
} as const;

/**
 * A FHIR R4 resource of the record (Patient, Encounter, Condition, Observation, MedicationRequest):
 * its members are HL7's and only those the graph node knows, so the schema states the common ones.
 */
export const fhirResource = z
  .looseObject({ resourceType: z.string(), id: z.string() })
  .describe("a FHIR R4 resource (hl7.org/fhir/R4), with the members its record knows");
export type FhirResource = z.infer<typeof fhirResource>;

const coding = z.object({ system: z.string(), code: z.string(), display: z.string() });
/** GET /api/patient/app/record (collection) and GET /api/patient/observations (searchset) */
export const fhirBundle = z.object({
  resourceType: z.literal("Bundle"),
  id: z.string(),
  meta: z.object({ lastUpdated: z.string(), tag: z.array(coding).optional().describe("the last EHR sync") }),
  type: z.enum(["collection", "searchset"]),
  timestamp: z.string(),
  total: z.number().int().optional().describe("searchset: how many matched"),
  link: z.array(z.object({ relation: z.literal("self"), url: z.string() })).optional(),
  entry: z.array(
    z.object({ resource: fhirResource, search: z.object({ mode: z.literal("match") }).optional() }),
  ),
});

const str = (v: PropertyValue | undefined) => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: PropertyValue | undefined) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
/** drops undefined and null members so resources carry only what is known */
function clean<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;
}
const ref = (type: string, id: string | undefined) => (id ? { reference: `${type}/${id}` } : undefined);

/** the members every resource of a record starts with (meta and identifier: see above) */
function head(resourceType: string, n: GraphNode, patientHolder?: string, lastUpdated?: string) {
  const p = n.properties;
  const holder = str(p.holder) ?? patientHolder;
  const uuid = str(p.resourceId);
  return {
    resourceType,
    id: n.id,
    meta:
      p.selfMeasured === true
        ? clean({ tag: [SELF_MEASURED_TAG], lastUpdated: str(p.recordedAt) })
        : clean({
            source: holder ? (ORGANISATIONS.find((o) => o.slug === holder)?.did ?? holder) : undefined,
            lastUpdated,
          }),
    identifier: uuid ? [{ system: SYSTEMS.uuid, value: `urn:uuid:${uuid}` }] : undefined,
  };
}

/** a CodeableConcept of one coding, when the code is known */
const concept = (system: string, code: string | undefined) =>
  code ? { coding: [{ system, code }] } : undefined;
const inList = <T>(x: T | undefined) => (x ? [x] : undefined);

/** the SNOMED CT reason of an encounter or a medication request */
function reasonCode(p: GraphNode["properties"]) {
  if (!str(p.reasonCode)) return undefined;
  return [
    { coding: [clean({ system: SYSTEMS.snomed, code: str(p.reasonCode), display: str(p.reasonDisplay) })] },
  ];
}

/** a record's l3 node as a FHIR resource of the patient's record */
type ToResource = (n: GraphNode, patientId: string, holder?: string, lastUpdated?: string) => FhirResource;

/** the node's code (in its own system, else `system`), another coding when known, its display as text */
function codeOf(p: GraphNode["properties"], system: string, also?: { system: string; code?: string }) {
  const coding: Record<string, unknown>[] = [
    clean({ system: str(p.codeSystem) ?? system, code: str(p.code), display: str(p.display) }),
  ];
  if (also?.code) coding.push(also);
  return { coding, text: str(p.display) };
}

export function toPatient(n: GraphNode): FhirResource {
  const p = n.properties;
  const given = str(p.givenName);
  return clean({
    ...head("Patient", n, str(p.holder)),
    name: [
      clean({
        use: "official",
        family: str(p.familyName),
        given: given ? given.split(" ") : undefined,
        text: str(p.name),
      }),
    ],
    gender: str(p.gender),
    birthDate: str(p.birthDate),
    address:
      str(p.city) || str(p.country) ? [clean({ city: str(p.city), country: str(p.country) })] : undefined,
    managingOrganization: str(p.holder)
      ? { display: ORGANISATIONS.find((o) => o.slug === p.holder)?.displayName ?? str(p.holder) }
      : undefined,
  });
}

export const toEncounter: ToResource = (n, patientId, holder, lastUpdated) => {
  const p = n.properties;
  return clean({
    ...head("Encounter", n, holder, lastUpdated),
    status: str(p.status) ?? "finished",
    class: clean({ system: SYSTEMS.actCode, code: str(p.class), display: str(p.classDisplay) }),
    subject: ref("Patient", patientId),
    period: clean({ start: str(p.periodStart), end: str(p.periodEnd) }),
    reasonCode: reasonCode(p),
    serviceProvider: str(p.serviceProvider) ? { display: str(p.serviceProvider) } : undefined,
  });
};

export const toCondition: ToResource = (n, patientId, holder, lastUpdated) => {
  const p = n.properties;
  return clean({
    ...head("Condition", n, holder, lastUpdated),
    clinicalStatus: concept(SYSTEMS.conditionClinical, str(p.clinicalStatus)),
    verificationStatus: concept(SYSTEMS.conditionVerification, str(p.verificationStatus)),
    category: inList(concept(SYSTEMS.conditionCategory, str(p.category))),
    code: codeOf(p, SYSTEMS.snomed, { system: SYSTEMS.icd10, code: str(p.icd10Code) }),
    subject: ref("Patient", patientId),
    encounter: ref("Encounter", str(p.encounterId)),
    onsetDateTime: str(p.onsetDate),
    abatementDateTime: str(p.abatementDate),
    recordedDate: str(p.recordedDate),
  });
};

export const toObservation: ToResource = (n, patientId, holder, lastUpdated) => {
  const p = n.properties;
  const self = p.selfMeasured === true;
  const low = num(p.referenceRangeLow);
  const high = num(p.referenceRangeHigh);
  const unit = str(p.unit);
  const quantity = (value: number | undefined) =>
    clean({ value, unit: str(p.unitDisplay) ?? unit, system: SYSTEMS.ucum, code: unit });
  return clean({
    ...head("Observation", n, holder, lastUpdated),
    status: str(p.status) ?? "final",
    category: inList(concept(SYSTEMS.obsCategory, str(p.category))),
    code: codeOf(p, SYSTEMS.loinc),
    subject: ref("Patient", patientId),
    encounter: ref("Encounter", str(p.encounterId)),
    effectiveDateTime: str(p.effectiveDateTime),
    issued: self ? str(p.recordedAt) : undefined,
    performer: self ? [ref("Patient", patientId)] : undefined,
    device: self && str(p.deviceName) ? { display: str(p.deviceName) } : undefined,
    valueQuantity: quantity(num(p.value)),
    interpretation: inList(concept(SYSTEMS.interpretation, str(p.interpretation))),
    referenceRange:
      low !== undefined || high !== undefined
        ? [
            clean({
              low: low !== undefined ? quantity(low) : undefined,
              high: high !== undefined ? quantity(high) : undefined,
            }),
          ]
        : undefined,
    note: str(p.note) ? [{ text: str(p.note) }] : undefined,
  });
};

export const toMedicationRequest: ToResource = (n, patientId, holder, lastUpdated) => {
  const p = n.properties;
  return clean({
    ...head("MedicationRequest", n, holder, lastUpdated),
    status: str(p.status) ?? "active",
    intent: str(p.intent) ?? "order",
    medicationCodeableConcept: codeOf(p, SYSTEMS.rxnorm, { system: SYSTEMS.atc, code: str(p.atcCode) }),
    subject: ref("Patient", patientId),
    encounter: ref("Encounter", str(p.encounterId)),
    authoredOn: str(p.authoredOn),
    dosageInstruction: str(p.dosageText) ? [{ text: str(p.dosageText) }] : undefined,
    reasonCode: reasonCode(p),
    dispenseRequest: num(p.daysSupply)
      ? {
          expectedSupplyDuration: { value: num(p.daysSupply), unit: "days", system: SYSTEMS.ucum, code: "d" },
        }
      : undefined,
  });
};

export const RELATIONS = {
  HAS_ENCOUNTER: toEncounter,
  HAS_CONDITION: toCondition,
  HAS_OBSERVATION: toObservation,
  HAS_MEDICATION_REQUEST: toMedicationRequest,
} as const;

export function isSelfMeasured(n: GraphNode): boolean {
  return n.properties.selfMeasured === true;
}

export type BundleExtra = Pick<z.infer<typeof fhirBundle>, "link"> & {
  tag?: readonly z.infer<typeof coding>[];
};

/** a FHIR Bundle as an object, its id and times made now (meta's `tag`, a searchset's `link` when given) */
export function bundle(
  type: "collection" | "searchset",
  resources: readonly FhirResource[],
  extra: BundleExtra = {},
): z.infer<typeof fhirBundle> {
  // the Bundle is made now: its meta.lastUpdated and its timestamp are the same instant
  const now = new Date().toISOString();
  return {
    resourceType: "Bundle",
    id: crypto.randomUUID(),
    meta: { lastUpdated: now, ...(extra.tag ? { tag: [...extra.tag] } : {}) },
    type,
    timestamp: now,
    ...(type === "searchset" ? { total: resources.length } : {}),
    ...(extra.link ? { link: extra.link } : {}),
    entry: resources.map((r) => ({
      resource: r,
      ...(type === "searchset" ? { search: { mode: "match" as const } } : {}),
    })),
  };
}
