/**
 * The insight query log: every federated cohort query and every question goes to the audit log
 * (kind "insight"), so the access body can review query patterns (a series of overlapping cohort
 * queries is how a differencing attack would show). Entries are written in batches, one
 * transaction every 100 ms, instead of one synchronous, fsynced write per request; each keeps the
 * time of its query. A crash or a shutdown can lose the last 100 ms of the log, not anyone's data.
 */
import type { AuditLog } from "../audit/log";
import type { AuditInput } from "../audit/model";
import type { Db } from "../storage/database";

export interface QueryLog {
  append(input: AuditInput): void;
  /** writes what is pending now (tests, shutdown) */
  flush(): void;
}

export function createQueryLog(audit: AuditLog | undefined, db?: Db, delayMs = 100): QueryLog {
  let pending: { input: AuditInput; at: Date }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!audit || !pending.length) return;
    const batch = pending;
    pending = [];
    if (db && !db.open) {
      console.warn(
        `[insight] query log: ${batch.length} entries not written, the database is closed (shutdown)`,
      );
      return;
    }
    const write = () => {
      for (const e of batch) audit.appendSync(e.input, e.at);
    };
    try {
      if (db) db.transaction(write)();
      else write();
    } catch (e) {
      console.error("[insight] query log write failed:", e);
    }
  };
  return {
    append(input) {
      if (!audit) return;
      pending.push({ input, at: new Date() });
      if (!timer) {
        timer = setTimeout(flush, delayMs);
        timer.unref?.();
      }
    },
    flush,
  };
}
