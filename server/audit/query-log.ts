/**
 * The insight query log: every federated cohort query and every question goes to the audit log
 * (kind "insight"), so the access body can review query patterns (a series of overlapping cohort
 * queries is how a differencing attack would show). Entries are written in batches, one
 * transaction every `delayMs` (the writer's `intervalMs`), instead of one write per request; each
 * keeps the time of its query. A shutdown awaits `flush()`
 * before the store closes, so nothing pending is lost then. Where a batch is written, and how, is the
 * writer's business (server/audit/batch-writer.ts): on the embedded store, a thread of its own.
 *
 * `append` resolves once the batch that holds the entry is committed (group commit: the looks at
 * records of access-log.ts await it before they are answered, decision 0044). A batch that fails is
 * tried again until `waitMs` after its first entry; then its entries are refused (rejected, logged),
 * and so they are at `waitMs` whatever the write is doing (a lock that is never let go).
 */
import type { AuditBatchWriter } from "./batch-writer";
import type { AuditInput } from "./model";

/** how long an entry may wait for its batch before it is refused */
export const AUDIT_WRITE_WAIT_MS = 5_000;

type Answer = { promise: Promise<void>; resolve(): void; reject(e: unknown): void };

export function createQueryLog(
  writer: AuditBatchWriter | undefined,
  delayMs = writer?.intervalMs ?? 100,
  waitMs = AUDIT_WRITE_WAIT_MS,
) {
  let pending: { input: AuditInput; at: Date }[] = [];
  // the answer of the pending batch: settled once it is written, or refused
  let answer: Answer | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // batches are written one after another, in the order of their queries
  let writing: Promise<void> = Promise.resolve();

  async function write(batch: { input: AuditInput; at: Date }[], deadline: number) {
    for (let pause = 50; ; pause = Math.min(2 * pause, 1_000)) {
      try {
        return await writer!.write(batch);
      } catch (e) {
        if (Date.now() + pause >= deadline) {
          console.error(`[audit] ${batch.length} entries not written (tried until ${waitMs} ms):`, e);
          throw e;
        }
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /** writes what is pending now and resolves when it (and any batch already being written) is done */
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (writer && pending.length) {
      const [batch, { resolve, reject }] = [pending, answer!];
      pending = [];
      answer = undefined;
      const deadline = batch[0].at.getTime() + waitMs;
      const written = writing.then(() => write(batch, deadline));
      writing = written.catch(() => {});
      const late = setTimeout(
        reject,
        deadline - Date.now(),
        new Error(`audit entries not written in ${waitMs} ms`),
      );
      late.unref?.();
      void written.then(resolve, reject).finally(() => clearTimeout(late));
    }
    return writing;
  };
  return {
    /** resolves once the entry is in the audit log; rejects when it cannot be written within `waitMs` */
    append(input: AuditInput): Promise<void> {
      if (!writer) return Promise.resolve();
      pending.push({ input, at: new Date() });
      if (!answer) {
        const a = {} as Answer;
        a.promise = new Promise<void>((resolve, reject) => Object.assign(a, { resolve, reject }));
        a.promise.catch(() => {}); // callers that do not await (the insight logs) leave no unhandled rejection
        answer = a;
      }
      if (!timer) {
        timer = setTimeout(() => void flush(), delayMs);
        timer.unref?.();
      }
      return answer.promise;
    },
    flush,
  };
}
