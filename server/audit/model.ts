import { z } from "zod";

/** The spec's AuditEntry, plus the hash chain that makes the log tamper-evident. */
export const auditEntry = z.object({
  id: z.string(),
  action: z.string(),
  actor: z.string(),
  target: z.string(),
  outcome: z.string(),
  timestamp: z.string().describe("ISO 8601 time"),
  kind: z.string().describe("what the entry is about; retention is per kind"),
  seq: z.number().int(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntry>;

export interface AuditInput {
  action: string;
  actor: string;
  target: string;
  outcome?: string;
  kind: string;
}

/** entries to append in order, each with the time of what it records */
export type AuditBatch = readonly { input: AuditInput; at: Date }[];

export const GENESIS_HASH = "0".repeat(64);
