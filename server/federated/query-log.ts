/**
 * The insight query log: every federated cohort query and every question goes to the audit log
 * (kind "insight"), so the access body can review query patterns (a series of overlapping cohort
 * queries is how a differencing attack would show). Entries are written in batches, one
 * transaction every 100 ms, instead of one write per request; each keeps the time of its query.
 * A crash can lose the last 100 ms of the log, not anyone's data; a shutdown awaits `flush()`
 * before the store closes, so nothing pending is lost then. On the embedded store a batch is
 * appended with the log's synchronous append (the graph store's way) inside the same transaction.
 */
import type { AuditLog } from "../audit/log";
import type { AuditInput } from "../audit/model";
import type { Relational } from "../storage/relational";

export interface QueryLog {
  append(input: AuditInput): void;
  /** writes what is pending now and resolves when it (and any batch already being written) is written */
  flush(): Promise<void>;
}

export function createQueryLog(audit: AuditLog | undefined, rel?: Relational, delayMs = 100): QueryLog {
  let pending: { input: AuditInput; at: Date }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // batches are written one after another, in the order of their queries
  let writing: Promise<void> = Promise.resolve();

  async function write(batch: { input: AuditInput; at: Date }[]) {
    if (!audit) return;
    try {
      // the embedded store: the log's own synchronous append (prepared statements on the store's
      // handle) inside the batch's one transaction, instead of three compiled queries per entry
      if (rel?.dialect === "sqlite" && audit.embedded)
        await rel.tx(async () => {
          audit.appendSyncBatch(batch);
        });
      else if (rel)
        await rel.tx(async (tx) => {
          for (const e of batch) await audit.append(e.input, { at: e.at, tx });
        });
      else for (const e of batch) await audit.append(e.input, { at: e.at });
    } catch (e) {
      console.error(`[insight] query log: ${batch.length} entries not written:`, e);
    }
  }

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (audit && pending.length) {
      const batch = pending;
      pending = [];
      writing = writing.then(() => write(batch));
    }
    return writing;
  };
  return {
    append(input) {
      if (!audit) return;
      pending.push({ input, at: new Date() });
      if (!timer) {
        timer = setTimeout(() => void flush(), delayMs);
        timer.unref?.();
      }
    },
    flush,
  };
}
