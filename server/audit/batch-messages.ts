import type { AuditBatch } from "./model";

/** What the hub and the audit batch thread (batch-thread.ts, batch-worker.ts) say to each other. */

export interface BatchWorkerData {
  /** the embedded store's file (its handle's name) */
  file: string;
  /** the audit chain's key (decision 0044) */
  key: Uint8Array;
}

/** from the hub to the thread */
export type BatchRequest = { type: "append"; id: number; batch: AuditBatch } | { type: "close" };

/** from the thread to the hub */
export type BatchReply =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "appended"; id: number }
  | { type: "refused"; id: number; message: string };
