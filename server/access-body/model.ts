import { z } from "zod";
import { httpUrl } from "../http/links";
import { A_DAY, CIVIL_DATE_PATTERN } from "./calendar";
import type { ClockData, ClockView } from "./clock";
import type { HistoryEntry } from "./store";
import { PERIODS, PURPOSE_CODES, type PurposeCode } from "./periods";

/**
 * The access body's records (api-spec.md leaves their fields "not shown"; these are ours, documented
 * in server/access-body/README.md) and the request bodies of the /api/compliance routes as zod schemas.
 */

export interface ApplicationData {
  title: string;
  /** the intended use (Art. 67): for the access body, never published */
  summary: string;
  purpose: PurposeCode;
  datasets: string[];
  datasetTitles: string[];
  organisationDid: string | null;
  /** username of the person who submitted: never published */
  submittedBy: string;
  submittedAt: string;
  /** last receipt of the application (submission, or the supplement that completed it) */
  receivedAt: string;
  receivedDate: string;
  pseudonymised: boolean;
  requestedDurationMonths: number;
  clock: ClockData;
  /** while INCOMPLETE: the applicant has until this date to complete it (Art. 68(4)) */
  completionDueDate: string | null;
  decision: {
    outcome: "GRANTED" | "REFUSED" | "WITHDRAWN";
    at: string;
    date: string;
    reasons: string | null;
    by: string;
  } | null;
  permitId: string | null;
  /** the marketplace HDABApproval node this record was seeded from or wrote */
  approvalNodeId: string | null;
  seeded: "marketplace" | "demo" | null;
}

export interface PermitData {
  applicationId: string;
  datasets: string[];
  datasetTitles: string[];
  purpose: PurposeCode;
  organisationDid: string | null;
  issuedAt: string;
  issuedDate: string;
  validFrom: string;
  validUntil: string;
  durationMonths: number;
  conditions: string[];
  secureProcessingEnvironment: string;
  pseudonymised: boolean;
  issuedBy: string;
  approvalNodeId: string | null;
  /** marketplace contracts (Contract nodes) this permit backs */
  contractIds: string[];
  revocation: { at: string; date: string; reason: string; by: string } | null;
  expiredAt: string | null;
  seeded: "marketplace" | "demo" | null;
}

export interface DataRequestData {
  title: string;
  question: string;
  purpose: PurposeCode;
  datasets: string[];
  datasetTitles: string[];
  submittedBy: string;
  receivedAt: string;
  receivedDate: string;
  /** Art. 69 answer due (see periods.ts: unverified) */
  dueDate: string;
  decision: {
    outcome: "APPROVED" | "REFUSED" | "WITHDRAWN";
    at: string;
    date: string;
    reasons: string | null;
    by: string;
  } | null;
  answer: {
    summary: string;
    table: { label: string; value: number }[];
    at: string;
    date: string;
    by: string;
  } | null;
  seeded: "demo" | null;
}

export interface InformationRequestData {
  applicationId: string;
  kind: "completeness" | "assessment";
  questions: string;
  openedAt: string;
  openedDate: string;
  openedBy: string;
  dueDate: string;
  answer: { text: string; at: string; date: string; by: string } | null;
  withdrawal: { reason: string; at: string; by: string } | null;
}

export const FINDING_SEVERITIES = ["low", "medium", "high"] as const;
export const FINDING_OUTCOMES = ["resolved", "no-breach", "penalty", "permit-revoked"] as const;

export interface FindingData {
  subjectRole: "DATA_USER" | "DATA_HOLDER";
  title: string;
  description: string;
  severity: (typeof FINDING_SEVERITIES)[number];
  article: string | null;
  relatedPermitId: string | null;
  openedAt: string;
  openedDate: string;
  openedBy: string;
  responseDueDate: string;
  response: { text: string; at: string; date: string; by: string } | null;
  closure: {
    outcome: (typeof FINDING_OUTCOMES)[number];
    note: string;
    at: string;
    date: string;
    by: string;
  } | null;
}

export interface ResultData {
  title: string;
  summary: string;
  permitId: string | null;
  dataRequestId: string | null;
  /** the day processing in the secure processing environment ended (or the data request was answered) */
  processingCompletedDate: string;
  /** Art. 61(4): 18 months later */
  publicationDueDate: string;
  declaredBy: string;
  declaredAt: string;
  check: { outcome: "RELEASED" | "REJECTED"; note: string; at: string; by: string } | null;
  publication: { url: string; at: string; date: string } | null;
}

export interface ApplicationView extends ApplicationData {
  id: string;
  purposeLabel: string;
  state: string;
  organisation: string;
  createdAt: string;
  updatedAt: string;
  clockView: ClockView;
  openInformationRequestId: string | null;
  allowedEvents: string[];
}

export interface ApplicationDetail extends ApplicationView {
  history: HistoryEntry[];
  informationRequests: (InformationRequestData & { id: string; state: string; history: HistoryEntry[] })[];
  permit: (PermitData & { id: string; state: string; history: HistoryEntry[] }) | null;
}

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
  purpose: z.enum(PURPOSE_CODES),
  datasets: z.array(idString).min(1).max(20),
  pseudonymised: z.boolean().default(false),
  durationMonths: z
    .number()
    .int()
    .min(1)
    .max(PERIODS.permitMaxDuration.amount * 12)
    .default(24),
});

export const withdrawSchema = z.object({ action: z.literal("withdraw"), reason });

export const completenessSchema = z.object({
  applicationId: idString,
  complete: z.boolean(),
  missing: listOfText.optional(),
  note: z.string().max(4000).trim().optional().describe("surrounding white space is trimmed"),
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
  durationMonths: z
    .number()
    .int()
    .min(1)
    .max(PERIODS.permitMaxDuration.amount * 12),
  conditions: listOfText,
  secureProcessingEnvironment: text(500),
  datasets: z.array(idString).min(1).max(20).optional(),
  purpose: z.enum(PURPOSE_CODES).optional(),
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
  purpose: z.enum(PURPOSE_CODES),
  datasets: z.array(idString).min(1).max(20),
});

export const decideDataRequestSchema = z.object({
  requestId: idString,
  decision: z.enum(["approve", "refuse", "answer"]),
  reasons: z.string().max(4000).trim().optional().describe("surrounding white space is trimmed"),
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

export const openFindingSchema = z.object({
  organisation: text(200),
  subjectRole: z.enum(["DATA_USER", "DATA_HOLDER"]),
  title: text(300),
  description: text(10_000),
  severity: z.enum(FINDING_SEVERITIES).default("medium"),
  article: z.string().max(100).trim().optional().describe("surrounding white space is trimmed"),
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
