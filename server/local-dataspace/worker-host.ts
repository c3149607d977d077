import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { LocalDataspace, LocalDataspaceOptions } from "./index";
import type { WorkerData, WorkerReply, WorkerRequest } from "./worker-messages";

/**
 * Starts the embedded dataspace in its own worker thread (worker.ts) and answers for it like
 * startLocalDataspace does in-process: the same endpoints on 127.0.0.1, changeVersion() read from
 * shared memory, close() stops its server and store and ends the thread. The asset records
 * (options.dataSource) stay on the hub's side and are handed over by message.
 */

/** the built worker beside the server bundle (build/server/local-dataspace-worker.js), when there is one */
export function builtWorkerFile(from: string | URL = import.meta.url): URL | undefined {
  const file = new URL("./local-dataspace-worker.js", from);
  return existsSync(fileURLToPath(file)) ? file : undefined;
}

export interface WorkerOptions extends LocalDataspaceOptions {
  workerFile: URL;
  /** the change counter to count in (kept across restarts so the hub's cache sees every change) */
  counter?: SharedArrayBuffer;
}

/** how long close() waits for the worker before terminating it */
const CLOSE_TIMEOUT_MS = 5_000;

export async function startLocalDataspaceWorker(options: WorkerOptions): Promise<LocalDataspace> {
  const counter = options.counter ?? new SharedArrayBuffer(4);
  const cell = new Int32Array(counter);
  const log = options.onError ?? ((e: unknown) => console.error("[local-dataspace]", e));
  const { dataDir, host, port, stepMs, graphBridgeUrl } = options;
  const data: WorkerData = { dataDir, host, port, stepMs, graphBridgeUrl, counter };
  const worker = new Worker(options.workerFile, { workerData: data });
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const tell = (m: WorkerRequest) => worker.postMessage(m);
  let closing: Promise<void> | undefined;

  const ready = new Promise<WorkerReply & { type: "ready" }>((resolve, reject) => {
    worker.on("message", (m: WorkerReply) => {
      if (m.type === "ready") resolve(m);
      else if (m.type === "failed") reject(new Error(m.message));
      else if (m.type === "data")
        options.dataSource(m.assetId, m.providerContextId, m.agreementId).then(
          (value) => tell({ type: "data", id: m.id, ok: true, value }),
          (e: unknown) =>
            tell({ type: "data", id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
        );
    });
    worker.once("error", (e) => {
      reject(e);
      if (!closing) log(e);
    });
    worker.once("exit", (code) => reject(new Error(`local dataspace worker exited (${code})`)));
  });

  let endpoints;
  try {
    endpoints = (await ready).endpoints;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  return {
    ...endpoints,
    changeVersion: () => Atomics.load(cell, 0),
    close() {
      closing ??= (async () => {
        tell({ type: "close" });
        const timeout = new Promise<"late">((r) => setTimeout(r, CLOSE_TIMEOUT_MS, "late").unref());
        if ((await Promise.race([exited, timeout])) === "late") await worker.terminate();
      })();
      return closing;
    },
  };
}
