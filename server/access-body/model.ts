import { z } from "zod";
import { ORGANISATIONS } from "../auth/personas";
import { httpUrl } from "../http/links";
import { A_DAY, CIVIL_DATE_PATTERN } from "../http/contract-fields";
import { clockData, clockViewSchema } from "./clock";
import { historyEntry } from "./store";
import { PERIODS, PURPOSE_CODES } from "./periods";

/**
 * The access body's records (api-spec.md leaves their fields "not shown"; these are ours, documented
 * in server/access-body/README.md) and the request bodies of the /api/compliance routes as zod schemas.
 */

const texts = z.array(z.string());
const nullable = z.string().nullable();
const purpose = z.enum(PURPOSE_CODES);
const seeded = (...from: ("marketplace" | "demo")[]) =>
  z.enum(from).nullable().describe("the seed the record comes from; null: written through the API");
/** a dated act: when (instant and Berlin date) and by whom */
const act = { at: z.string(), date: z.string(), by: z.string() };
const decision = <E extends z.ZodType<string>>(outcome: E) =>
  z.object({ outcome, ...act, reasons: nullable }).nullable();
const reply = z.object({ text: z.string(), ...act }).nullable();

export const applicationData = z.object({
  title: z.string(),
  summary: z.string().describe("the intended use (Art. 67): for the access body, never published"),
  purpose,
  datasets: texts,
  datasetTitles: texts,
  organisationDid: nullable,
  submittedBy: z.string().describe("username of the person who submitted: never published"),
  submittedAt: z.string(),
  receivedAt: z
    .string()
    .describe("last receipt of the application (submission, or the supplement that completed it)"),
  receivedDate: z.string(),
  pseudonymised: z.boolean(),
  requestedDurationMonths: z.number().int(),
  clock: clockData,
  completionDueDate: nullable.describe(
    "while INCOMPLETE: the applicant has until this date to complete it (Art. 68(4))",
  ),
  decision: decision(z.enum(["GRANTED", "REFUSED", "WITHDRAWN"])),
  permitId: nullable,
  approvalNodeId: nullable.describe("the marketplace HDABApproval node this record was seeded from or wrote"),
  seeded: seeded("marketplace", "demo"),
});
export type ApplicationData = z.infer<typeof applicationData>;

export const permitData = z.object({
  applicationId: z.string(),
  datasets: texts,
  datasetTitles: texts,
  purpose,
  organisationDid: nullable,
  issuedAt: z.string(),
  issuedDate: z.string(),
  validFrom: z.string(),
  validUntil: z.string(),
  durationMonths: z.number().int(),
  conditions: texts,
  secureProcessingEnvironment: z.string(),
  pseudonymised: z.boolean(),
  issuedBy: z.string(),
  approvalNodeId: nullable,
  contractIds: texts.describe("marketplace contracts (Contract nodes) this permit backs"),
  revocation: z.object({ ...act, reason: z.string() }).nullable(),
  expiredAt: nullable,
  seeded: seeded("marketplace", "demo"),
});
export type PermitData = z.infer<typeof permitData>;

export const dataRequestData = z.object({
  title: z.string(),
  question: z.string(),
  purpose,
  datasets: texts,
  datasetTitles: texts,
  submittedBy: z.string(),
  receivedAt: z.string(),
  receivedDate: z.string(),
  dueDate: z.string().describe("Art. 69 answer due (see periods.ts: unverified)"),
  decision: decision(z.enum(["APPROVED", "REFUSED", "WITHDRAWN"])),
  answer: z
    .object({
      summary: z.string(),
      table: z.array(z.object({ label: z.string(), value: z.number() })),
      ...act,
    })
    .nullable(),
  seeded: seeded("demo"),
});
export type DataRequestData = z.infer<typeof dataRequestData>;

export const informationRequestData = z.object({
  applicationId: z.string(),
  kind: z.enum(["completeness", "assessment"]),
  questions: z.string(),
  openedAt: z.string(),
  openedDate: z.string(),
  openedBy: z.string(),
  dueDate: z.string(),
  answer: reply,
  withdrawal: z.object({ reason: z.string(), at: z.string(), by: z.string() }).nullable(),
});
export type InformationRequestData = z.infer<typeof informationRequestData>;

export const FINDING_SEVERITIES = ["low", "medium", "high"] as const;
export const FINDING_OUTCOMES = ["resolved", "no-breach", "penalty", "permit-revoked"] as const;

export const findingData = z.object({
  subjectRole: z.enum(["DATA_USER", "DATA_HOLDER"]),
  title: z.string(),
  description: z.string(),
  severity: z.enum(FINDING_SEVERITIES),
  article: nullable,
  relatedPermitId: nullable,
  openedAt: z.string(),
  openedDate: z.string(),
  openedBy: z.string(),
  responseDueDate: z.string(),
  response: reply,
  closure: z.object({ outcome: z.enum(FINDING_OUTCOMES), note: z.string(), ...act }).nullable(),
});
export type FindingData = z.infer<typeof findingData>;

export const resultData = z.object({
  title: z.string(),
  summary: z.string(),
  permitId: nullable,
  dataRequestId: nullable,
  processingCompletedDate: z
    .string()
    .describe(
      "the day processing in the secure processing environment ended (or the data request was answered)",
    ),
  publicationDueDate: z.string().describe("Art. 61(4): 18 months later"),
  declaredBy: z.string(),
  declaredAt: z.string(),
  check: z
    .object({ outcome: z.enum(["RELEASED", "REJECTED"]), note: z.string(), at: z.string(), by: z.string() })
    .nullable(),
  publication: z.object({ url: z.string(), at: z.string(), date: z.string() }).nullable(),
});
export type ResultData = z.infer<typeof resultData>;

// ---- the records as answered (views.ts builds them) ----

/** what every record answers besides its fields */
const recordFields = {
  id: z.string(),
  state: z.string(),
  organisation: z.string().describe("the organisation the record concerns"),
  createdAt: z.string(),
  updatedAt: z.string(),
  allowedEvents: texts.describe("the events its state allows next"),
};
const due = {
  daysLeft: z.number().int().nullable().describe("days to the due date (Berlin); null when nothing is due"),
  overdue: z.boolean(),
};
const history = z.array(historyEntry);
const purposeLabel = z.string();

export const applicationRecord = applicationData.extend({
  ...recordFields,
  purposeLabel,
  clockView: clockViewSchema,
  openInformationRequestId: nullable,
});
export type ApplicationView = z.infer<typeof applicationRecord>;
export const permitRecord = permitData.extend({ ...recordFields, purposeLabel });
export const dataRequestRecord = dataRequestData.extend({ ...recordFields, ...due, purposeLabel });
export const findingRecord = findingData.extend({ ...recordFields, ...due });
export const resultRecord = resultData.extend({ ...recordFields, ...due });
export const informationRequestRecord = informationRequestData.extend({
  ...recordFields,
  ...due,
  applicationTitle: nullable,
});
/** a record of the application's detail: its fields, id, state and history */
const part = { id: z.string(), state: z.string(), history };
export const applicationDetail = applicationRecord.extend({
  history,
  informationRequests: z.array(informationRequestData.extend(part)),
  permit: permitData.extend(part).nullable(),
});
export type ApplicationDetail = z.infer<typeof applicationDetail>;

// ---- request bodies ----

/**
 * Free text: at most `max` characters and not blank as sent, then stored without its surrounding white
 * space (the checks run before the trim, so the document's maxLength and pattern are the rule).
 */
const text = (max: number) =>
  z.string().max(max).regex(/\S/, "must not be blank").trim().describe("surrounding white space is trimmed");
const reason = text(4000);
/** an identifier, kept as sent: no surrounding white space (refused, not trimmed) */
const idString = z
  .string()
  .min(1)
  .max(100)
  .regex(/^\S(?:[\s\S]*\S)?$/, "must not start or end with white space");
/** optional free text, no pattern, stored without its surrounding white space */
const optionalText = (max: number) =>
  z.string().max(max).trim().optional().describe("surrounding white space is trimmed");
/** each dataset once: a list naming one twice (`datasets=a&datasets=a`) is refused, not stored twice */
const datasetIds = z
  .array(idString)
  .min(1)
  .max(20)
  .refine((ids) => new Set(ids).size === ids.length, "must name each dataset once")
  .meta({ uniqueItems: true });
const permitMonths = z
  .number()
  .int()
  .min(1)
  .max(PERIODS.permitMaxDuration.amount * 12);
const listOfText = z.union([
  text(2000).transform((s) =>
    s
      .split(/\n+/)
      .map((x) => x.trim())
      .filter(Boolean),
  ),
  z.array(text(2000)).min(1).max(50),
]);

export const submitApplicationSchema = z.object({
  title: text(300),
  summary: text(10_000),
  purpose,
  datasets: datasetIds,
  pseudonymised: z.boolean().default(false),
  durationMonths: permitMonths.default(24),
});

export const withdrawSchema = z.object({ action: z.literal("withdraw"), reason });

export const completenessSchema = z.object({
  applicationId: idString,
  complete: z.boolean(),
  missing: listOfText.optional(),
  note: optionalText(4000),
});

export const clockEventSchema = z.object({
  applicationId: idString,
  event: z.enum(["extend", "pause", "resume"]),
  reason,
  months: z.number().int().optional(),
});

export const openInformationRequestSchema = z.object({
  applicationId: idString,
  questions: text(10_000),
  dueInDays: z.number().int().min(1).max(90).default(30),
});

export const answerInformationRequestSchema = z.object({
  informationRequestId: idString,
  answer: text(20_000),
});

export const issuePermitSchema = z.object({
  applicationId: idString,
  decision: z.literal("grant").default("grant"),
  durationMonths: permitMonths,
  conditions: listOfText,
  secureProcessingEnvironment: text(500),
  datasets: datasetIds.optional(),
  purpose: purpose.optional(),
});

export const refuseApplicationSchema = z.object({
  applicationId: idString,
  decision: z.literal("refuse"),
  reasons: reason,
});

export const revokePermitSchema = z.object({ permitId: idString, reason });

export const submitDataRequestSchema = z.object({
  title: text(300),
  question: text(10_000),
  purpose,
  datasets: datasetIds,
});

export const decideDataRequestSchema = z.object({
  requestId: idString,
  decision: z.enum(["approve", "refuse", "answer"]),
  reasons: optionalText(4000),
  answer: z
    .object({
      summary: text(10_000),
      table: z
        .array(z.object({ label: text(200), value: z.number().finite() }))
        .max(200)
        .default([]),
    })
    .optional(),
});

/** the organisations the access body supervises, whom a finding may be about: the built-in data holders and users */
export const SUPERVISED = ORGANISATIONS.filter((o) => o.role !== "HDAB").map((o) => o.displayName) as [
  string,
  ...string[],
];

export const openFindingSchema = z.object({
  organisation: z.enum(SUPERVISED, {
    // a finding no one could see or answer is refused, not stored
    error: (issue) =>
      `must be an organisation the access body supervises (${SUPERVISED.join(", ")}): ${JSON.stringify(issue.input)} is not`,
  }),
  subjectRole: z.enum(["DATA_USER", "DATA_HOLDER"]),
  title: text(300),
  description: text(10_000),
  severity: z.enum(FINDING_SEVERITIES).default("medium"),
  article: optionalText(100),
  relatedPermitId: idString.optional(),
  responseDueInDays: z.number().int().min(1).max(180).default(30),
});

export const respondFindingSchema = z.object({ findingId: idString, response: text(20_000) });
export const closeFindingSchema = z.object({
  findingId: idString,
  outcome: z.enum(FINDING_OUTCOMES),
  note: text(4000),
});

export const declareResultSchema = z
  .object({
    title: text(300),
    summary: text(10_000),
    permitId: idString.optional(),
    dataRequestId: idString.optional(),
    processingCompletedDate: z.string().regex(CIVIL_DATE_PATTERN, "must be a date YYYY-MM-DD").meta(A_DAY),
  })
  .refine((v) => !!v.permitId !== !!v.dataRequestId, {
    message: "name exactly one of permitId or dataRequestId",
  })
  .meta({ oneOf: [{ required: ["permitId"] }, { required: ["dataRequestId"] }] });

export const resultActionSchema = z.discriminatedUnion("action", [
  z.object({ resultId: idString, action: z.literal("release"), note: text(4000) }),
  z.object({ resultId: idString, action: z.literal("reject"), note: text(4000) }),
  z.object({ resultId: idString, action: z.literal("resubmit"), summary: text(10_000) }),
  z.object({ resultId: idString, action: z.literal("publish"), url: httpUrl }),
]);
