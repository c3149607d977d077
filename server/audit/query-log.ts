/**
 * The insight query log: every federated cohort query and every question goes to the audit log
 * (kind "insight"), so the access body can review query patterns (a series of overlapping cohort
 * queries is how a differencing attack would show). Entries are written in batches, one
 * transaction every `intervalMs` of the writer (100 ms; 20 ms on the audit thread), instead of one
 * write per request; each keeps the time of its query. A crash can lose the last batch of the log,
 * not anyone's data; a shutdown awaits `flush()` before the store closes, so nothing pending is lost
 * then. Where a batch is written, and how, is the writer's business (server/audit/batch-writer.ts):
 * on the embedded store, a thread of its own.
 */
import type { AuditBatchWriter } from "./batch-writer";
import type { AuditInput } from "./model";

export interface QueryLog {
  append(input: AuditInput): void;
  /** writes what is pending now and resolves when it (and any batch already being written) is written */
  flush(): Promise<void>;
}

export function createQueryLog(
  writer: AuditBatchWriter | undefined,
  delayMs = writer?.intervalMs ?? 100,
): QueryLog {
  let pending: { input: AuditInput; at: Date }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // batches are written one after another, in the order of their queries
  let writing: Promise<void> = Promise.resolve();

  async function write(batch: { input: AuditInput; at: Date }[]) {
    try {
      await writer?.write(batch);
    } catch (e) {
      console.error(`[insight] query log: ${batch.length} entries not written:`, e);
    }
  }

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (writer && pending.length) {
      const batch = pending;
      pending = [];
      writing = writing.then(() => write(batch));
    }
    return writing;
  };
  return {
    append(input) {
      if (!writer) return;
      pending.push({ input, at: new Date() });
      if (!timer) {
        timer = setTimeout(() => void flush(), delayMs);
        timer.unref?.();
      }
    },
    flush,
  };
}
