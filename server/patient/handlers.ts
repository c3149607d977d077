import { json, noContent } from "../http/errors";
import { parsedBody, parsedQuery, queryInt } from "../http/contract";
import type { HandlerMap } from "../http/handler";
import { byPatient, consentBody, consentQuery, patientListQuery } from "./contract";
import { PATIENT_LIST_DEFAULT, type PatientService } from "./service";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface PatientServices {
  patients: PatientService;
}

/** a read of one patient's record (profile, insights, research), audited as `patient.<part>.read` */
const readOf =
  (part: "profile" | "insights" | "research"): HandlerMap<PatientServices>[string] =>
  async (ctx) =>
    json(
      await ctx.services.patients[part](
        parsedQuery(ctx, byPatient).patientId,
        ctx.user!,
        `patient.${part}.read`,
      ),
    );

export const patientHandlers: HandlerMap<PatientServices> = {
  "GET /api/patient": async (ctx) => {
    const q = parsedQuery(ctx, patientListQuery);
    const page = { limit: queryInt(q.limit, PATIENT_LIST_DEFAULT), offset: queryInt(q.offset, 0) };
    return json(await ctx.services.patients.list(ctx.user!, page, "patient.list.read"));
  },
  "GET /api/patient/profile": readOf("profile"),
  "GET /api/patient/insights": readOf("insights"),
  "GET /api/patient/research": readOf("research"),
  "POST /api/patient/research": async (ctx) =>
    json(await ctx.services.patients.grantConsent(parsedBody(ctx, consentBody), ctx.user!), 201),
  "DELETE /api/patient/research": async (ctx) => {
    const { patientId, studyId } = parsedQuery(ctx, consentQuery);
    await ctx.services.patients.revokeConsent(patientId, studyId, ctx.user!);
    return noContent();
  },
};
