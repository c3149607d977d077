import { json, noContent } from "../http/errors";
import { intParam, readJsonObject, type HandlerMap } from "../http/handler";
import { PATIENT_LIST_DEFAULT, PATIENT_LIST_MAX } from "./service";
import type { PatientService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface PatientServices {
  patients: PatientService;
}

export const patientHandlers: HandlerMap<PatientServices> = {
  "GET /api/patient": async ({ services, query, user }) =>
    json(
      await services.patients.list(
        user!,
        {
          limit: intParam(query, "limit", PATIENT_LIST_DEFAULT, 1, PATIENT_LIST_MAX),
          offset: intParam(query, "offset", 0, 0, 10_000_000),
        },
        "patient.list.read",
      ),
    ),
  "GET /api/patient/profile": async ({ services, query, user }) =>
    json(await services.patients.profile(query.get("patientId"), user!, "patient.profile.read")),
  "GET /api/patient/insights": async ({ services, query, user }) =>
    json(await services.patients.insights(query.get("patientId"), user!, "patient.insights.read")),
  "GET /api/patient/research": async ({ services, query, user }) =>
    json(await services.patients.research(query.get("patientId"), user!, "patient.research.read")),
  "POST /api/patient/research": async ({ services, request, user }) =>
    json(await services.patients.grantConsent(await readJsonObject(request), user!), 201),
  "DELETE /api/patient/research": async ({ services, query, user }) => {
    await services.patients.revokeConsent(query.get("patientId"), query.get("studyId"), user!);
    return noContent();
  },
};
