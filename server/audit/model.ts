/** The spec's AuditEntry, plus the hash chain that makes the log tamper-evident. */
export interface AuditEntry {
  id: string;
  action: string;
  actor: string;
  target: string;
  outcome: string;
  timestamp: string;
  /** kind of record the entry is about (catalogue, consent, session, ...): retention is per kind */
  kind: string;
  seq: number;
  prevHash: string;
  hash: string;
}

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
