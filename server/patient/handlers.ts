import { json, jsonBuffer, noContent } from "../http/errors";
import { intParam, readJsonObject, type HandlerMap } from "../http/handler";
import { PATIENT_LIST_DEFAULT, PATIENT_LIST_MAX } from "./service";
import type { PatientService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface PatientServices {
  patients: PatientService;
}

export const patientHandlers: HandlerMap<PatientServices> = {
  "GET /api/patient": async ({ services, query, user }) =>
    jsonBuffer(
      await services.patients.listBody(user!, {
        limit: intParam(query, "limit", PATIENT_LIST_DEFAULT, 1, PATIENT_LIST_MAX),
        offset: intParam(query, "offset", 0, 0, 10_000_000),
      }),
    ),
  "GET /api/patient/profile": async ({ services, query, user }) =>
    jsonBuffer(await services.patients.profileBody(query.get("patientId"), user!)),
  "GET /api/patient/insights": async ({ services, query, user }) =>
    jsonBuffer(await services.patients.insightsBody(query.get("patientId"), user!)),
  "GET /api/patient/research": async ({ services, query, user }) =>
    jsonBuffer(await services.patients.researchBody(query.get("patientId"), user!)),
  "POST /api/patient/research": async ({ services, request, user }) =>
    json(await services.patients.grantConsent(await readJsonObject(request), user!), 201),
  "DELETE /api/patient/research": async ({ services, query, user }) => {
    await services.patients.revokeConsent(query.get("patientId"), query.get("studyId"), user!);
    return noContent();
  },
};
