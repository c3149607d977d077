import { z } from "zod";
import type { Contracts } from "../http/contract";
import { intQuery, listOf, ok, optionalText } from "../http/contract-fields";
import { AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX } from "./handlers";

/** The declarations of the audit routes (server/http/contract.ts). */

export const auditContract: Contracts = {
  "GET /api/admin/audit": {
    query: z.object({
      limit: intQuery("limit", 1, AUDIT_LIMIT_MAX, AUDIT_LIMIT_DEFAULT),
      verify: optionalText("`true`: the chain's verification report instead of entries"),
      before: z
        .string()
        .regex(/^(\d+)?$/, "before must be an entry's seq (a whole number)")
        .optional(),
      kind: optionalText(),
      actor: optionalText(),
      action: optionalText(),
      outcome: optionalText(),
      q: optionalText("text to look for"),
      since: optionalText("ISO 8601 date or date-time"),
      until: optionalText("ISO 8601 date or date-time"),
    }),
    answers: {
      200: ok(
        z.union([listOf("id", "action", "actor", "timestamp"), z.looseObject({})]),
        "AuditEntry array, or with verify=true the chain report",
      ),
    },
  },
  "GET /api/admin/audit/retention": {
    query: z.object({ kind: optionalText("one entry kind") }),
    answers: { 200: ok(z.looseObject({}), "Every kind's rules, or with ?kind= that kind's") },
  },
  "POST /api/admin/audit/retention": {
    body: z.looseObject({
      kind: z.string().optional().describe("required unless action is purge"),
      days: z
        .union([z.number(), z.string()])
        .optional()
        .describe("whole days ≥ 1; required unless action is purge"),
      action: z.literal("purge").optional(),
    }),
    answers: { 200: ok(z.looseObject({})) },
  },
};
