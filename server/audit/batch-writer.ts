import type { Relational } from "../storage/relational";
import type { AuditLog } from "./log";
import type { AuditBatch } from "./model";

/**
 * Where the insight query logs' batches of audit entries are written (server/audit/query-log.ts).
 * On the embedded store in a file, by a thread of their own on its own connection (batch-thread.ts,
 * `startAuditBatchWriter`, decision 0034); on PostgreSQL, an in-memory store or a build without the
 * thread's file, here on the main thread, in one transaction per batch.
 */
export interface AuditBatchWriter {
  /** appends the batch in order in one transaction; resolves once it is committed, rejects when it is not */
  write(batch: AuditBatch): Promise<void>;
  /** "thread": its own thread and connection; "inline": the main thread's connection */
  readonly where: "thread" | "inline";
  /** how often a query log hands over its batch; shorter on the thread, whose lock a main-connection write waits for (decision 0034) */
  readonly intervalMs: number;
  /** after the writes already asked for; later writes are refused */
  close(): Promise<void>;
}

/** the batch written on the main thread, in one transaction of the relational store */
export function inlineBatchWriter(audit: AuditLog, rel: Relational): AuditBatchWriter {
  return {
    where: "inline",
    intervalMs: 100,
    async write(batch) {
      // the embedded store: the log's own synchronous append (prepared statements on the store's
      // handle) inside the batch's one transaction, instead of three compiled queries per entry
      if (rel.dialect === "sqlite" && audit.embedded)
        await rel.tx(async () => {
          audit.appendSyncBatch(batch);
        });
      else
        await rel.tx(async (tx) => {
          for (const e of batch) await audit.append(e.input, { at: e.at, tx });
        });
    },
    async close() {},
  };
}
