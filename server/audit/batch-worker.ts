import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { openDatabase } from "../storage/database";
import type { BatchReply, BatchRequest, BatchWorkerData } from "./batch-messages";
import { chainKey, syncAppender } from "./chain";

/**
 * The audit batch thread (entry point, built to build/server/audit-batch-worker.js): appends the
 * insight query logs' batches to the audit chain on a connection of its own to the embedded store's
 * file, each batch in one IMMEDIATE transaction, so that their inserts, hashes and fsync run beside
 * the hub's event loop instead of on it. The hub's own transactions begin IMMEDIATE too (decision 0034).
 * It loads chain.ts and better-sqlite3 only (no query builder, no PostgreSQL driver).
 */

const port = parentPort!;
const { file, key } = workerData as BatchWorkerData;
const reply = (m: BatchReply) => port.postMessage(m);

try {
  const db = openDatabase(path.dirname(file), path.basename(file));
  const append = db.transaction(syncAppender(db, chainKey(Buffer.from(key))).append);
  port.on("message", (m: BatchRequest) => {
    if (m.type === "close") {
      db.close();
      port.close();
      return;
    }
    try {
      append.immediate(m.batch);
      reply({ type: "appended", id: m.id });
    } catch (e) {
      reply({ type: "refused", id: m.id, message: e instanceof Error ? e.message : String(e) });
    }
  });
  reply({ type: "ready" });
} catch (e) {
  reply({ type: "failed", message: e instanceof Error ? e.message : String(e) });
  port.close();
}
