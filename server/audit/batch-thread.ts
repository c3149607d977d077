import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { BatchReply, BatchRequest, BatchWorkerData } from "./batch-messages";
import type { Db } from "../storage/database";
import type { Relational } from "../storage/relational";
import { inlineBatchWriter, type AuditBatchWriter } from "./batch-writer";
import type { AuditBatch } from "./model";
import { AUDIT_TOPIC, type AuditLog } from "./log";

/** the built thread beside the server bundle (build/server/audit-batch-worker.js), when there is one */
export function builtAuditWorkerFile(from: string | URL = import.meta.url): URL | undefined {
  const file = new URL("./audit-batch-worker.js", from);
  return existsSync(fileURLToPath(file)) ? file : undefined;
}

/** the thread's heap: enough for batches of tens of thousands of entries */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 96 };

/**
 * Starts the audit batch thread (batch-worker.ts) on the embedded store's `file` and writes through
 * it. Should the thread stop on its own, the batches it had not answered are refused (they may or
 * may not be in the log) and later ones are written by `fallback`, on the main thread.
 */
export async function startAuditBatchThread(options: {
  file: string;
  /** the audit chain's key (the log's `key.secret`): the thread's entries are keyed as the log's are */
  key: Buffer;
  workerFile: URL;
  fallback: AuditBatchWriter;
  /** how long close() waits for the thread before terminating it (default 5 s) */
  closeTimeoutMs?: number;
  onError?: (message: string) => void;
}): Promise<AuditBatchWriter> {
  const log = options.onError ?? ((m: string) => console.error(`[audit] ${m}`));
  const worker = new Worker(options.workerFile, {
    workerData: { file: options.file, key: options.key } satisfies BatchWorkerData,
    // a few thousand small entries a second: a small heap of its own, not the server's young
    // generation (`--max-semi-space-size=64` of npm start would otherwise apply to it too)
    resourceLimits: THREAD_HEAP,
  });
  // the thread does not keep the process alive by itself: close() ends it, and awaits what it was given
  worker.unref();
  const waiting = new Map<number, { resolve(): void; reject(e: Error): void }>();
  let nextId = 0;
  let closing: Promise<void> | undefined;
  let stopped = false;
  let started = false;
  const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
  void exited.then((code) => {
    stopped = true;
    if (started && !closing)
      log(`the batch thread stopped (exit code ${code}); batches are written on the main thread`);
    for (const w of waiting.values())
      w.reject(new Error("the audit batch thread stopped before it answered; the batch may not be written"));
    waiting.clear();
  });

  const ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (m: BatchReply) => {
      if (m.type === "ready") resolve();
      else if (m.type === "failed") reject(new Error(`the audit batch thread did not start: ${m.message}`));
      else {
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.type === "appended") w?.resolve();
        else w?.reject(new Error(m.message));
      }
    });
    worker.once("error", (e) => {
      reject(e);
      log(`the batch thread failed: ${e.message}`);
    });
    void exited.then((code) => reject(new Error(`the audit batch thread exited (${code})`)));
  });
  try {
    await ready;
    started = true;
  } catch (e) {
    await worker.terminate();
    throw e;
  }

  return {
    where: "thread",
    intervalMs: 20,
    write(batch: AuditBatch) {
      if (closing) return Promise.reject(new Error("the audit batch writer is closed"));
      if (stopped) return options.fallback.write(batch);
      const id = nextId++;
      return new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ type: "append", id, batch } satisfies BatchRequest);
      });
    },
    close() {
      closing ??= (async () => {
        // the thread answers in order: "close" comes after every batch already sent
        if (!stopped) worker.postMessage({ type: "close" } satisfies BatchRequest);
        const timeout = new Promise<"late">((r) =>
          setTimeout(r, options.closeTimeoutMs ?? 5_000, "late").unref(),
        );
        if ((await Promise.race([exited, timeout])) === "late") await worker.terminate();
      })();
      return closing;
    },
  };
}

/**
 * The thread when the log lives in the embedded store's file and the thread's built file is there
 * (`workerFile` null: never), the main thread otherwise, or when the thread does not start.
 */
export async function startAuditBatchWriter(deps: {
  audit: AuditLog;
  rel: Relational;
  db?: Db;
  workerFile?: URL | null;
}): Promise<AuditBatchWriter> {
  const inline = inlineBatchWriter(deps.audit, deps.rel);
  const workerFile = deps.workerFile === undefined ? builtAuditWorkerFile() : deps.workerFile;
  const { db } = deps;
  if (!workerFile || !db || db.memory || deps.rel.dialect !== "sqlite" || !deps.audit.embedded) return inline;
  try {
    const thread = await startAuditBatchThread({
      file: db.name,
      key: deps.audit.key.secret,
      workerFile,
      fallback: inline,
    });
    return {
      ...thread,
      // the thread's appends bypass this connection: the change feed is told once the thread has
      // answered (committed, or stopped when it may have), so the log's version moves before the
      // write is acknowledged and kept answers of the log are rebuilt (server/http/kept)
      write: (batch) =>
        thread.write(batch).finally(() => void deps.rel.changes.notify(AUDIT_TOPIC).catch(() => {})),
    };
  } catch (e) {
    // the server still starts: the batches are written on the main thread
    console.error(
      `[audit] ${e instanceof Error ? e.message : String(e)}; batches are written on the main thread`,
    );
    return inline;
  }
}
