import { z } from "zod";
import type { Contracts } from "../http/contract";
import { ok, optionalText, refusals } from "../http/contract-fields";
import { auditQuery } from "./handlers";
import { auditEntry } from "./model";
import { KIND_PATTERN } from "./log";
import { purgeReport, retentionOverview, retentionRow } from "./retention";

/** The declarations of the audit routes (server/http/contract.ts). */

/** handlers.ts chainReport: log.ts AuditVerification and what the walk counted */
const chainReport = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  firstBroken: z.object({ seq: z.number().int(), id: z.string(), reason: z.string() }).optional(),
  entries: z.number().int(),
  purged: z.number().int(),
  verifiedAt: z.string(),
  durationMs: z.number(),
  method: z.string(),
});

export const auditContract: Contracts = {
  "GET /api/admin/audit": {
    query: auditQuery,
    answers: {
      200: ok(
        z.union([z.array(auditEntry), chainReport]),
        "AuditEntry array, or with verify=true the chain report",
      ),
      400: refusals(
        "since must be an ISO 8601 date or date-time",
        "until must be an ISO 8601 date or date-time",
      ),
    },
  },
  "GET /api/admin/audit/retention": {
    query: z.object({ kind: optionalText("one entry kind") }),
    answers: {
      200: ok(z.union([retentionOverview, retentionRow]), "Every kind's rules, or with ?kind= that kind's"),
    },
  },
  "POST /api/admin/audit/retention": {
    // documented only (the handler reads it, retention.ts): kind and days, or action purge
    body: z
      .looseObject({
        kind: z
          .string()
          .regex(KIND_PATTERN)
          .optional()
          .describe(
            "a lower-case entry kind (surrounding white space is trimmed); required unless action is purge",
          ),
        days: z
          .union([z.number().int().min(1), z.string().regex(/^0*[1-9]\d*$/)])
          .optional()
          .describe("whole days ≥ 1; required unless action is purge"),
        action: z.literal("purge").optional(),
      })
      .meta({
        anyOf: [
          {
            required: ["action"],
            properties: { action: { const: "purge" } },
            not: { anyOf: [{ required: ["kind"] }, { required: ["days"] }] },
          },
          { required: ["kind", "days"], not: { required: ["action"] } },
        ],
      }),
    bodyParsedBy: "handler",
    answers: {
      200: ok(z.union([retentionRow, purgeReport]), "the kind's retention as set, or the purge's report"),
      400: refusals(
        "Retention for <kind> cannot be shorter than <the kind's statutory floor>",
        "Retention for <kind> cannot be longer than 3653 days<rest>",
      ),
    },
  },
};
