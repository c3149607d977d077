import { z } from "zod";
import type { AnswerSpec, Contracts, OperationContract } from "../http/contract";
import {
  CIVIL_DATE_PATTERN,
  created,
  fails,
  intQuery,
  ok,
  optionalText,
  refusals,
} from "../http/contract-fields";
import {
  answerInformationRequestSchema,
  applicationDetail,
  applicationRecord,
  dataRequestRecord,
  findingRecord,
  informationRequestRecord,
  permitRecord,
  resultRecord,
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
import { MIN_CELL } from "./data-requests";
import { historyEntry } from "./store";
import { activityReportSchema } from "./report";
import { publicInformation, publicRegister } from "./public";

/**
 * The declarations of the access body's routes (server/http/contract.ts). The bodies are the schemas
 * of model.ts the services parse with (`bodyParsedBy: "handler"`: their 400 texts name exactly the
 * missing fields). A withdrawal names the record it withdraws.
 */

const recordId = z.string().min(1).max(100);
const withdraw = (idName: string) => withdrawSchema.extend({ [idName]: recordId });
const withHistory = { history: z.array(historyEntry).describe("with ?id=: the record's history") };
const byState = {
  id: optionalText("one record with its full history"),
  state: optionalText("only records in this state"),
};
/** GET of a list of records, or with ?id= the one with its history */
const listOf = (record: z.ZodObject, query = z.object(byState)) => ({
  query,
  answers: { 200: ok(z.union([z.array(record), record.extend(withHistory)])), 403: NOT_YOURS, 404: NONE },
});
/** what a step on an information request answers: it and its application */
const withApplication = z.object({
  informationRequest: informationRequestRecord,
  application: applicationDetail,
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
/** what a workflow step may be refused with besides its body's 400 */
const REFUSED = { 403: NOT_YOURS, 404: NONE, 409: STATE };

/** a workflow step: its body (parsed by the service) and its answer, the record it changed */
const post = (body: z.ZodType, answer: z.ZodType, status: 200 | 201 = 200) => ({
  body,
  bodyParsedBy: "handler" as const,
  answers: {
    [status]: status === 201 ? created(answer) : ok(answer),
    ...REFUSED,
  },
});

/** a workflow POST that either creates a record (201) or acts on one (200), each answering its own */
const createOrAct = (
  body: z.ZodType,
  made: [answer: z.ZodType, description: string],
  acted: [answer: z.ZodType, description: string],
  more: Record<number, AnswerSpec> = {},
): OperationContract => ({
  body,
  bodyParsedBy: "handler" as const,
  answers: {
    200: ok(...acted),
    201: created(...made),
    ...more,
    ...REFUSED,
  },
});

/**
 * A decision's own requirements (data-requests.ts `decide`), stated in the document: refusing needs
 * reasons, answering needs an answer whose counts are 0 or at least MIN_CELL (0082).
 */
const decideBody = decideDataRequestSchema.meta({
  anyOf: [
    { properties: { decision: { const: "approve" } } },
    { properties: { decision: { const: "refuse" }, reasons: { pattern: "\\S" } }, required: ["reasons"] },
    {
      properties: {
        decision: { const: "answer" },
        answer: {
          properties: {
            table: { items: { properties: { value: { anyOf: [{ maximum: 0 }, { minimum: MIN_CELL }] } } } },
          },
        },
      },
      required: ["answer"],
    },
  ],
});

export const accessBodyContract: Contracts = {
  "GET /api/compliance/applications": {
    query: z.object({
      ...byState,
      limit: intQuery("limit", 1, 1000),
      offset: intQuery("offset", 0, 10_000_000, 0),
    }),
    answers: {
      200: ok(
        z.union([z.array(applicationRecord), applicationDetail]),
        "The applications, or with ?id= one with its history",
      ),
      403: NOT_YOURS,
      404: NONE,
    },
  },
  "POST /api/compliance/applications": createOrAct(
    z.union([submitApplicationSchema, withdraw("applicationId")]),
    [applicationDetail, "Submitted"],
    [applicationDetail, "Withdrawn"],
    { 400: UNKNOWN_DATASET },
  ),
  "POST /api/compliance/applications/clock": post(
    z.discriminatedUnion("event", [
      clockEventSchema.extend({ event: z.literal("extend"), months: z.number().int().min(1).max(3) }),
      clockEventSchema.extend({ event: z.enum(["pause", "resume"]) }),
    ]),
    applicationDetail,
  ),
  "POST /api/compliance/applications/complete": post(
    z.union([
      completenessSchema.extend({ complete: z.literal(true) }),
      completenessSchema.extend({
        complete: z.literal(false),
        missing: completenessSchema.shape.missing.unwrap(),
      }),
    ]),
    z.object({
      application: applicationDetail,
      informationRequest: informationRequestRecord
        .nullable()
        .describe("incomplete: the information request asking for what is missing"),
    }),
  ),
  "GET /api/compliance/information-requests": listOf(
    informationRequestRecord,
    z.object({ ...byState, applicationId: optionalText("only those of this application") }),
  ),
  "POST /api/compliance/information-requests": createOrAct(
    z.union([openInformationRequestSchema, withdraw("informationRequestId")]),
    [withApplication, "Asked"],
    [withApplication, "Withdrawn"],
  ),
  "POST /api/compliance/information-requests/answer": post(answerInformationRequestSchema, withApplication),
  "POST /api/compliance/permits": createOrAct(
    z.union([issuePermitSchema, refuseApplicationSchema]),
    [permitRecord, "The permit issued"],
    [applicationDetail, "Refused: the application"],
  ),
  "POST /api/compliance/permits/revoke": post(revokePermitSchema, permitRecord),
  "GET /api/compliance/requests": listOf(dataRequestRecord),
  "POST /api/compliance/requests": createOrAct(
    z.union([submitDataRequestSchema, withdraw("requestId")]),
    [dataRequestRecord, "Submitted"],
    [dataRequestRecord, "Withdrawn"],
    { 400: UNKNOWN_DATASET },
  ),
  "POST /api/compliance/requests/decide": post(decideBody, dataRequestRecord),
  "GET /api/compliance/findings": listOf(findingRecord),
  "POST /api/compliance/findings": post(openFindingSchema, findingRecord, 201),
  "POST /api/compliance/findings/respond": post(respondFindingSchema, findingRecord),
  "POST /api/compliance/findings/close": post(closeFindingSchema, findingRecord),
  "GET /api/compliance/results": listOf(resultRecord),
  "POST /api/compliance/results": createOrAct(
    z.union([declareResultSchema, resultActionSchema]),
    [resultRecord, "Declared"],
    [resultRecord, "The action's result"],
  ),
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
  "GET /api/information": { answers: { 200: ok(publicInformation) } },
};
