import { parentPort, workerData } from "node:worker_threads";
import { startLocalDataspace, type LocalDataspace } from "./index";
import type { WorkerData, WorkerReply, WorkerRequest } from "./worker-messages";

/**
 * The embedded dataspace in its own worker thread (entry point, built to
 * build/server/local-dataspace-worker.js): its own event loop, so its SQLite commits and answers
 * do not wait behind the hub's requests, nor the hub's behind its own (decision 0022). The hub speaks
 * HTTP to it on 127.0.0.1. The records behind an asset come from the hub's graph, asked for by
 * message (worker-host.ts answers them); the change counter lives in shared memory.
 */

const data = workerData as WorkerData;
const port = parentPort!;
const counter = new Int32Array(data.counter);
let nextAsk = 0;
const asked = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

function dataSource(assetId: string, providerContextId?: string, agreementId?: string): Promise<unknown> {
  const id = nextAsk++;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    port.postMessage({ type: "data", id, assetId, providerContextId, agreementId } satisfies WorkerReply);
  });
}

let running: LocalDataspace | undefined;
port.on("message", (m: WorkerRequest) => {
  if (m.type === "data") {
    const waiting = asked.get(m.id);
    asked.delete(m.id);
    if (m.ok) waiting?.resolve(m.value);
    else waiting?.reject(new Error(m.error));
  } else if (m.type === "close") {
    void (async () => {
      await running?.close();
      for (const w of asked.values()) w.reject(new Error("local dataspace closed"));
      port.postMessage({ type: "closed" } satisfies WorkerReply);
      port.close();
    })();
  }
});

startLocalDataspace({ ...data, dataSource, changeCounter: counter }).then(
  (l) => {
    running = l;
    const { close: _close, changeVersion: _version, ...endpoints } = l;
    port.postMessage({ type: "ready", endpoints } satisfies WorkerReply);
  },
  (e: unknown) => {
    port.postMessage({
      type: "failed",
      message: e instanceof Error ? e.message : String(e),
    } satisfies WorkerReply);
    port.close();
  },
);
