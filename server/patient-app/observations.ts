import { z } from "zod";
import type { Mutation, NodeRecord } from "../graph";
import { badRequest, forbidden } from "../http/errors";
import { invalidField } from "../http/field-errors";
import { SYSTEMS } from "./fhir";

/**
 * Self-measured data: which LOINC codes a patient may add, in which UCUM units, within which
 * plausible ranges (a physiological limit, not a reference range: 300 /min is refused as a typo or
 * a sensor fault, 180 /min is accepted and flagged H). Everything else is refused with a 400 that
 * names the field.
 */

export interface SelfMeasure {
  loinc: string;
  display: string;
  category: "vital-signs" | "laboratory";
  /** UCUM code → plausible [min, max] and the display unit */
  units: Record<string, { min: number; max: number; display: string }>;
  reference?: { low: number; high: number; unit: string };
}

export const SELF_MEASURES: readonly SelfMeasure[] = [
  {
    loinc: "8480-6",
    display: "Systolic blood pressure",
    category: "vital-signs",
    units: { "mm[Hg]": { min: 50, max: 260, display: "mmHg" } },
    reference: { low: 90, high: 139, unit: "mm[Hg]" },
  },
  {
    loinc: "8462-4",
    display: "Diastolic blood pressure",
    category: "vital-signs",
    units: { "mm[Hg]": { min: 30, max: 160, display: "mmHg" } },
    reference: { low: 60, high: 89, unit: "mm[Hg]" },
  },
  {
    loinc: "8867-4",
    display: "Heart rate",
    category: "vital-signs",
    units: { "/min": { min: 20, max: 250, display: "beats/min" } },
    reference: { low: 60, high: 100, unit: "/min" },
  },
  {
    loinc: "9279-1",
    display: "Respiratory rate",
    category: "vital-signs",
    units: { "/min": { min: 4, max: 60, display: "breaths/min" } },
    reference: { low: 12, high: 20, unit: "/min" },
  },
  {
    loinc: "8310-5",
    display: "Body temperature",
    category: "vital-signs",
    units: { Cel: { min: 30, max: 44, display: "°C" }, "[degF]": { min: 86, max: 111.2, display: "°F" } },
    reference: { low: 36.1, high: 37.5, unit: "Cel" },
  },
  {
    loinc: "29463-7",
    display: "Body weight",
    category: "vital-signs",
    units: { kg: { min: 1, max: 350, display: "kg" }, "[lb_av]": { min: 2, max: 770, display: "lb" } },
  },
  {
    loinc: "8302-2",
    display: "Body height",
    category: "vital-signs",
    units: { cm: { min: 40, max: 250, display: "cm" } },
  },
  {
    loinc: "39156-5",
    display: "Body mass index (BMI) [Ratio]",
    category: "vital-signs",
    units: { "kg/m2": { min: 10, max: 80, display: "kg/m²" } },
    reference: { low: 18.5, high: 24.9, unit: "kg/m2" },
  },
  {
    loinc: "59408-5",
    display: "Oxygen saturation in Arterial blood by Pulse oximetry",
    category: "vital-signs",
    units: { "%": { min: 50, max: 100, display: "%" } },
    reference: { low: 95, high: 100, unit: "%" },
  },
  {
    loinc: "2339-0",
    display: "Glucose [Mass/volume] in Blood",
    category: "laboratory",
    units: { "mg/dL": { min: 20, max: 600, display: "mg/dL" } },
    reference: { low: 70, high: 140, unit: "mg/dL" },
  },
  {
    loinc: "15074-8",
    display: "Glucose [Moles/volume] in Blood",
    category: "laboratory",
    units: { "mmol/L": { min: 1.1, max: 33.3, display: "mmol/L" } },
    reference: { low: 3.9, high: 7.8, unit: "mmol/L" },
  },
];
const BY_LOINC = new Map(SELF_MEASURES.map((m) => [m.loinc, m]));
export const LOINC_CODE = /^\d{1,7}-\d$/;

const coding = z.object({
  system: z.string().optional(),
  code: z.string().optional(),
  display: z.string().optional(),
});
export const observationSchema = z.object({
  resourceType: z.literal("Observation"),
  status: z.enum(["final", "preliminary", "amended", "corrected"]).default("final"),
  code: z.object({ coding: z.array(coding).min(1), text: z.string().optional() }),
  subject: z.object({ reference: z.string() }).optional(),
  effectiveDateTime: z.iso.datetime({ offset: true }),
  valueQuantity: z.object({
    value: z.number().finite(),
    unit: z.string().max(40).optional(),
    system: z.string(),
    code: z.string(),
  }),
  device: z.object({ display: z.string().trim().min(1).max(80) }).optional(),
  note: z
    .array(z.object({ text: z.string().trim().min(1).max(500) }))
    .max(1)
    .optional(),
});

const MAX_PER_REQUEST = 100;
const MAX_AGE_MS = 5 * 365 * 24 * 3600 * 1000;

/** Validates a FHIR Observation or a Bundle of them; all or nothing. */
export function validateObservations(body: Record<string, unknown>, patientId: string, now = new Date()) {
  let items: { where: string; value: unknown }[];
  if (body.resourceType === "Bundle") {
    if (!["collection", "batch", "transaction"].includes(String(body.type)))
      throw badRequest("Bundle.type must be collection, batch or transaction");
    if (!Array.isArray(body.entry) || body.entry.length === 0)
      throw badRequest("Bundle.entry must hold at least one Observation");
    if (body.entry.length > MAX_PER_REQUEST)
      throw badRequest(`At most ${MAX_PER_REQUEST} observations per request`);
    items = body.entry.map((e, i) => ({
      where: `entry[${i}].resource`,
      value: (e as { resource?: unknown } | null)?.resource,
    }));
  } else if (body.resourceType === "Observation") {
    items = [{ where: "Observation", value: body }];
  } else {
    throw badRequest("Body must be a FHIR Observation or a Bundle of Observations (resourceType)");
  }
  return items.map(({ where, value }) => validateOne(where, value, patientId, now));
}

function validateOne(where: string, value: unknown, patientId: string, now: Date) {
  // the field's path in the request body ("valueQuantity.value", "entry.0.resource.effectiveDateTime"):
  // the API answers the text; a form marks the field (server/http/field-errors.ts)
  const inBody = (field: string) =>
    where === "Observation" ? field : `${where.replace(/\[(\d+)\]/g, ".$1")}.${field}`;
  // the text names the field too: "entry[0].resource.valueQuantity.code: …"
  const about = (field: string, text: string) => invalidField(inBody(field), `${where}.${field}: ${text}`);
  const parsed = observationSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".");
    throw field ? about(field, issue.message) : badRequest(`${where}.(resource): ${issue.message}`);
  }
  const o = parsed.data;
  if (o.subject && o.subject.reference !== `Patient/${patientId}`) {
    throw forbidden(
      `${where}.subject: you can only add observations to your own record (Patient/${patientId})`,
    );
  }
  const loinc = o.code.coding.find((c) => c.system === SYSTEMS.loinc);
  if (!loinc?.code) throw about("code.coding", `a LOINC coding (system ${SYSTEMS.loinc}) is required`);
  if (!LOINC_CODE.test(loinc.code)) throw about("code.coding", `"${loinc.code}" is not a LOINC code`);
  const measure = BY_LOINC.get(loinc.code);
  if (!measure) {
    throw about(
      "code.coding",
      `LOINC ${loinc.code} is not a self-measurable code; accepted: ${SELF_MEASURES.map((m) => `${m.loinc} (${m.display})`).join(", ")}`,
    );
  }
  const q = o.valueQuantity;
  if (q.system !== SYSTEMS.ucum) throw about("valueQuantity.system", `units must be UCUM (${SYSTEMS.ucum})`);
  const unit = measure.units[q.code];
  if (!unit) {
    throw about(
      "valueQuantity.code",
      `${measure.display} (${measure.loinc}) is measured in ${Object.keys(measure.units).join(" or ")}, not ${q.code}`,
    );
  }
  if (q.value < unit.min || q.value > unit.max) {
    throw about(
      "valueQuantity.value",
      `${q.value} ${unit.display} is outside the plausible range for ${measure.display} (${unit.min}–${unit.max} ${unit.display})`,
    );
  }
  const at = Date.parse(o.effectiveDateTime);
  if (at > now.getTime() + 5 * 60 * 1000) throw about("effectiveDateTime", "lies in the future");
  if (at < now.getTime() - MAX_AGE_MS) throw about("effectiveDateTime", "more than 5 years ago");
  return {
    measure,
    status: o.status,
    value: q.value,
    unit: q.code,
    effectiveDateTime: new Date(at).toISOString(),
    deviceName: o.device?.display,
    note: o.note?.[0]?.text,
  };
}

/** The graph nodes and edges of new self-measured observations in the patient's l3 record. */
export function observationMutations(
  items: ReturnType<typeof validateObservations>,
  o: {
    patientId: string;
    accountId: string | null;
    enteredBy: string;
    deviceName: string | null;
    loincNodes: Set<string>;
    now: Date;
  },
): { mutations: Mutation[]; ids: string[] } {
  const mutations: Mutation[] = [];
  const ids: string[] = [];
  for (const v of items) {
    const id = `observation-self-${crypto.randomUUID()}`;
    ids.push(id);
    // the reference range applies in its own unit only
    const ref = v.measure.reference?.unit === v.unit ? v.measure.reference : undefined;
    const node: NodeRecord = {
      id,
      label: "Observation",
      layer: "l3",
      properties: {
        resourceType: "Observation",
        resourceId: crypto.randomUUID(),
        status: v.status,
        category: v.measure.category,
        code: v.measure.loinc,
        codeSystem: SYSTEMS.loinc,
        display: v.measure.display,
        value: v.value,
        unit: v.unit,
        unitDisplay: v.measure.units[v.unit].display,
        unitSystem: SYSTEMS.ucum,
        referenceRangeLow: ref?.low ?? null,
        referenceRangeHigh: ref?.high ?? null,
        interpretation: ref ? (v.value > ref.high ? "H" : v.value < ref.low ? "L" : "N") : null,
        effectiveDateTime: v.effectiveDateTime,
        patientId: o.patientId,
        selfMeasured: true,
        source: o.accountId ? "companion-app" : "patient-portal",
        appAccountId: o.accountId,
        deviceName: v.deviceName ?? o.deviceName,
        enteredBy: o.enteredBy,
        recordedAt: o.now.toISOString(),
        note: v.note ?? null,
      },
    };
    mutations.push({ op: "createNode", node });
    mutations.push({
      op: "createEdge",
      edge: { id: `has-observation-${id}`, source: o.patientId, target: id, type: "HAS_OBSERVATION" },
    });
    const loincNode = `loinc-${v.measure.loinc}`;
    if (o.loincNodes.has(loincNode))
      mutations.push({
        op: "createEdge",
        edge: { id: `coded-by-${id}`, source: id, target: loincNode, type: "CODED_BY" },
      });
  }
  return { mutations, ids };
}
