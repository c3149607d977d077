import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, has, intQuery, listOf, NO_CONTENT, ok, requiredText } from "../http/contract-fields";
import { PATIENT_LIST_DEFAULT, PATIENT_LIST_MAX } from "./service";

/** The declarations of the patient routes (server/http/contract.ts). */

const PATIENT_ID = "patientId query parameter is required";
const CONSENT = "patientId and studyId are required";
const byPatient = z.object({ patientId: requiredText(PATIENT_ID) });
const NOT_YOURS = fails("Not a patient the caller may see (403)");
const NONE = fails("No such patient");

export const patientContract: Contracts = {
  "GET /api/patient": {
    query: z.object({
      limit: intQuery("limit", 1, PATIENT_LIST_MAX, PATIENT_LIST_DEFAULT),
      offset: intQuery("offset", 0, 10_000_000, 0),
    }),
    answers: { 200: ok(listOf("id", "name"), "Patients visible to the caller") },
  },
  "GET /api/patient/profile": {
    query: byPatient,
    answers: { 200: ok(has("patient"), "PatientProfile"), 403: NOT_YOURS, 404: NONE },
  },
  "GET /api/patient/insights": {
    query: byPatient,
    answers: { 200: ok(has("patientId")), 403: NOT_YOURS, 404: NONE },
  },
  "GET /api/patient/research": {
    query: byPatient,
    answers: { 200: ok(listOf("studyId", "title")), 403: NOT_YOURS, 404: NONE },
  },
  "POST /api/patient/research": {
    body: z.looseObject({
      patientId: requiredText(CONSENT),
      studyId: requiredText(CONSENT),
      purpose: z.string().optional().describe("default RESEARCH"),
    }),
    answers: {
      201: created(has("consentId")),
      403: NOT_YOURS,
      404: fails("No such patient or study"),
      409: fails("Consent already granted"),
    },
  },
  "DELETE /api/patient/research": {
    query: z.object({ patientId: requiredText(CONSENT), studyId: requiredText(CONSENT) }),
    answers: { 204: NO_CONTENT, 403: NOT_YOURS, 404: fails("No such consent") },
  },
};
