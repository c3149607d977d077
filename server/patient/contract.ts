import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, intQuery, NO_CONTENT, ok, requiredText } from "../http/contract-fields";

export const PATIENT_LIST_DEFAULT = 100;
export const PATIENT_LIST_MAX = 1000;
/** the furthest a patient list starts (the store takes no offset past a 64-bit integer) */
export const PATIENT_OFFSET_MAX = 10_000_000;

/** The declarations of the patient routes (server/http/contract.ts). */

const PATIENT_ID = "patientId query parameter is required";
const CONSENT = "patientId and studyId are required";
export const byPatient = z.object({ patientId: requiredText(PATIENT_ID) });
const NOT_YOURS = fails("Not a patient the caller may see (403)");
const NONE = fails("No such patient");

/** the answers (service.ts): a patient, its record's items (graph properties), the summary and the programmes */
const text = z.string().optional();
export const patient = z.object({
  id: z.string(),
  resourceId: text,
  name: text,
  gender: text,
  birthDate: text,
  city: text,
  country: text,
});
const value = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.union([z.string(), z.number()])),
]);
/** one FHIR-derived item of the record: its id and its properties (resourceType, code, display …) */
const recordItem = z.looseObject({ id: z.string() }).catchall(value);
export const profile = z.object({
  patient,
  encounters: z.array(recordItem),
  conditions: z.array(recordItem),
  observations: z.array(recordItem),
  medications: z.array(recordItem),
});
const dateOrNull = z.string().nullable();
export const insights = z.object({
  patientId: z.string(),
  age: z.number().int().nullable(),
  counts: z.object({
    encounters: z.number().int(),
    conditions: z.number().int(),
    observations: z.number().int(),
    medications: z.number().int(),
  }),
  firstEncounter: dateOrNull,
  lastEncounter: dateOrNull,
  activeConditions: z.array(
    z.object({ id: value, code: value.optional(), display: value.optional(), onsetDate: value.optional() }),
  ),
  currentMedications: z.array(
    z.object({ id: value, code: value.optional(), display: value.optional(), authoredOn: value.optional() }),
  ),
  latestObservations: z.array(
    z.object({
      code: value.optional(),
      display: value.optional(),
      value: value.optional(),
      unit: value.optional(),
      effectiveDate: dateOrNull,
      interpretation: value.optional(),
    }),
  ),
});
export const programme = z.object({
  studyId: z.string(),
  title: z.string(),
  purpose: z.string(),
  sponsor: z.string().nullable(),
  status: z.string().nullable(),
  validUntil: z.string().nullable(),
  consent: z
    .object({
      consentId: z.string(),
      status: z.enum(["active", "revoked"]),
      grantedAt: value.optional(),
      revokedAt: value.optional(),
      purpose: value.optional(),
    })
    .nullable(),
});

export const patientListQuery = z.object({
  limit: intQuery("limit", 1, PATIENT_LIST_MAX, PATIENT_LIST_DEFAULT),
  offset: intQuery("offset", 0, PATIENT_OFFSET_MAX, 0),
});
export const consentBody = z.looseObject({
  patientId: requiredText(CONSENT),
  studyId: requiredText(CONSENT),
  purpose: z.string().optional().describe("default RESEARCH"),
});
export const consentQuery = z.object({ patientId: requiredText(CONSENT), studyId: requiredText(CONSENT) });

export const patientContract: Contracts = {
  "GET /api/patient": {
    query: patientListQuery,
    answers: { 200: ok(z.array(patient), "Patients visible to the caller") },
  },
  "GET /api/patient/profile": {
    query: byPatient,
    answers: { 200: ok(profile, "PatientProfile"), 403: NOT_YOURS, 404: NONE },
  },
  "GET /api/patient/insights": {
    query: byPatient,
    answers: { 200: ok(insights, "A summary of the record"), 403: NOT_YOURS, 404: NONE },
  },
  "GET /api/patient/research": {
    query: byPatient,
    answers: {
      200: ok(z.array(programme), "The research programmes and the patient's consent to each"),
      403: NOT_YOURS,
      404: NONE,
    },
  },
  "POST /api/patient/research": {
    body: consentBody,
    answers: {
      201: created(z.object({ consentId: z.string() })),
      403: NOT_YOURS,
      404: fails("No such patient or study"),
      409: fails("Consent already granted"),
    },
  },
  "DELETE /api/patient/research": {
    query: consentQuery,
    answers: { 204: NO_CONTENT, 403: NOT_YOURS, 404: fails("No such consent") },
  },
};
