import { z } from "zod";
import type { Contracts } from "../http/contract";
import { created, fails, has, intQuery, ok, optionalText, refusals } from "../http/contract-fields";
import {
  answerInformationRequestSchema,
  clockEventSchema,
  closeFindingSchema,
  completenessSchema,
  declareResultSchema,
  decideDataRequestSchema,
  issuePermitSchema,
  openFindingSchema,
  openInformationRequestSchema,
  refuseApplicationSchema,
  respondFindingSchema,
  resultActionSchema,
  revokePermitSchema,
  submitApplicationSchema,
  submitDataRequestSchema,
  withdrawSchema,
} from "./model";
import { CIVIL_DATE_PATTERN } from "./calendar";
import { activityReportSchema } from "./report";

/**
 * The declarations of the access body's routes (server/http/contract.ts). The bodies are the schemas
 * of model.ts the services parse with (`bodyParsedBy: "handler"`: their 400 texts name exactly the
 * missing fields). A withdrawal names the record it withdraws.
 */

const recordId = z.string().min(1).max(100);
const withdraw = (idName: string) => withdrawSchema.extend({ [idName]: recordId });
const record = has("id", "state");
/** what a workflow step answers: the record changed, or the application it belongs to */
const stepAnswer = z.looseObject({});
const list = z.array(record);
const one = z.union([list, record]);
const byState = {
  id: optionalText("one record with its full history"),
  state: optionalText("only records in this state"),
};
/** the public register (public.ts `register`): every field picked explicitly, nothing personal */
const nullableText = z.string().nullable();
const registered = {
  id: z.string(),
  organisation: z.string(),
  datasets: z.array(z.string()).describe("the datasets' titles"),
  purpose: z.string(),
  purposeLabel: z.string(),
  state: z.string(),
};
const publicRegister = z.object({
  accessBody: z.object({ name: z.string(), did: z.string() }),
  legalBasis: z.string(),
  generatedAt: z.string().describe("ISO 8601 time"),
  asOf: z.string().describe("the day in Berlin, YYYY-MM-DD"),
  permits: z.array(
    z.object({
      ...registered,
      applicationId: z.string(),
      issuedDate: z.string(),
      validFrom: z.string(),
      validUntil: z.string(),
      durationMonths: z.number().int(),
      secureProcessingEnvironment: z.string(),
      revokedDate: nullableText,
      revocationReason: nullableText,
    }),
  ),
  applications: z.array(
    z.object({
      ...registered,
      title: z.string(),
      receivedDate: z.string(),
      decision: z.enum(["GRANTED", "REFUSED", "WITHDRAWN"]).nullable(),
      decisionDate: nullableText,
      refusalReasons: nullableText,
      permitId: nullableText,
    }),
  ),
  dataRequests: z.array(
    z.object({
      ...registered,
      title: z.string(),
      receivedDate: z.string(),
      decisionDate: nullableText,
      refusalReasons: nullableText,
    }),
  ),
});
/** an optional report day (empty: the default), a day that exists (calendar.ts) */
const day = (name: string, description: string) =>
  z
    .string()
    .regex(new RegExp(`^$|${CIVIL_DATE_PATTERN.source}`), `${name} must be a date YYYY-MM-DD`)
    .optional()
    .meta({ format: "date", description });
/** a refusal no schema can hold: the datasets named must exist (context.ts) */
const UNKNOWN_DATASET = refusals("Unknown dataset: <id> (use an id of GET /api/catalog)");
const STATE = fails("The record's state does not allow this event (409)");
const NONE = fails("No such record");
const NOT_YOURS = fails("Another organisation's record, or the caller's role may not do this");

const post = (
  body: z.ZodType,
  status: 200 | 201 = 200,
  also: Record<number, ReturnType<typeof fails>> = {},
) => ({
  body,
  bodyParsedBy: "handler" as const,
  answers: {
    [status]: status === 201 ? created(stepAnswer) : ok(stepAnswer),
    403: NOT_YOURS,
    404: NONE,
    409: STATE,
    ...also,
  },
});

export const accessBodyContract: Contracts = {
  "GET /api/compliance/applications": {
    query: z.object({
      ...byState,
      limit: intQuery("limit", 1, 1000),
      offset: intQuery("offset", 0, 10_000_000, 0),
    }),
    answers: {
      200: ok(one, "The applications, or with ?id= one with its history"),
      403: NOT_YOURS,
      404: NONE,
    },
  },
  "POST /api/compliance/applications": {
    ...post(z.union([submitApplicationSchema, withdraw("applicationId")]), 201),
    answers: {
      200: ok(stepAnswer, "Withdrawn"),
      400: UNKNOWN_DATASET,
      201: created(stepAnswer, "Submitted"),
      403: NOT_YOURS,
      404: NONE,
      409: STATE,
    },
  },
  "POST /api/compliance/applications/clock": post(
    z.discriminatedUnion("event", [
      clockEventSchema.extend({ event: z.literal("extend"), months: z.number().int().min(1).max(3) }),
      clockEventSchema.extend({ event: z.enum(["pause", "resume"]) }),
    ]),
  ),
  "POST /api/compliance/applications/complete": post(
    z.union([
      completenessSchema.extend({ complete: z.literal(true) }),
      completenessSchema.extend({
        complete: z.literal(false),
        missing: completenessSchema.shape.missing.unwrap(),
      }),
    ]),
  ),
  "GET /api/compliance/information-requests": {
    query: z.object({ ...byState, applicationId: optionalText("only those of this application") }),
    answers: { 200: ok(one), 403: NOT_YOURS, 404: NONE },
  },
  "POST /api/compliance/information-requests": {
    ...post(z.union([openInformationRequestSchema, withdraw("informationRequestId")]), 201),
    answers: {
      200: ok(stepAnswer, "Withdrawn"),
      201: created(stepAnswer, "Asked"),
      403: NOT_YOURS,
      404: NONE,
      409: STATE,
    },
  },
  "POST /api/compliance/information-requests/answer": post(answerInformationRequestSchema),
  "POST /api/compliance/permits": {
    ...post(z.union([issuePermitSchema, refuseApplicationSchema])),
    answers: {
      200: ok(stepAnswer, "Refused: the application"),
      201: created(stepAnswer, "The permit issued"),
      403: NOT_YOURS,
      404: NONE,
      409: STATE,
    },
  },
  "POST /api/compliance/permits/revoke": post(revokePermitSchema),
  "GET /api/compliance/requests": {
    query: z.object(byState),
    answers: { 200: ok(one), 403: NOT_YOURS, 404: NONE },
  },
  "POST /api/compliance/requests": {
    ...post(z.union([submitDataRequestSchema, withdraw("requestId")]), 201),
    answers: {
      200: ok(stepAnswer, "Withdrawn"),
      400: UNKNOWN_DATASET,
      201: created(stepAnswer, "Submitted"),
      403: NOT_YOURS,
      404: NONE,
      409: STATE,
    },
  },
  "POST /api/compliance/requests/decide": post(decideDataRequestSchema),
  "GET /api/compliance/findings": {
    query: z.object(byState),
    answers: { 200: ok(one), 403: NOT_YOURS, 404: NONE },
  },
  "POST /api/compliance/findings": post(openFindingSchema, 201),
  "POST /api/compliance/findings/respond": post(respondFindingSchema),
  "POST /api/compliance/findings/close": post(closeFindingSchema),
  "GET /api/compliance/results": {
    query: z.object(byState),
    answers: { 200: ok(one), 403: NOT_YOURS, 404: NONE },
  },
  "POST /api/compliance/results": {
    ...post(z.union([declareResultSchema, resultActionSchema]), 201),
    answers: {
      200: ok(stepAnswer, "The action's result"),
      201: created(stepAnswer, "Declared"),
      403: NOT_YOURS,
      404: NONE,
      409: STATE,
    },
  },
  "GET /api/permits": {
    answers: { 200: ok(publicRegister, "The register of applications, data requests and permits") },
  },
  "GET /api/activity-report": {
    query: z.object({
      format: z
        .enum(["json", "csv", "html"], { error: "format must be json, csv or html" })
        .optional()
        .describe("default json"),
      from: day("from", "first day, a day that exists YYYY-MM-DD (default: a year before `to`)"),
      to: day("to", "last day, a day that exists YYYY-MM-DD (default: today in Berlin)"),
    }),
    answers: {
      200: {
        description: "The report: JSON, or with format=csv / format=html a file",
        schema: activityReportSchema,
        alternatives: { "text/csv": undefined, "text/html": undefined },
      },
      400: refusals("from must not be after to"),
    },
  },
  "GET /api/information": { answers: { 200: ok(has("accessBody", "howToApply")) } },
};
