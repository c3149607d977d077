import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createQueryLog } from "./query-log";
import { createSqliteGraphStore } from "../graph/sqlite-store";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import type { Relational } from "../storage/relational";
import { builtAuditWorkerFile, startAuditBatchThread, startAuditBatchWriter } from "./batch-thread";
import { inlineBatchWriter } from "./batch-writer";
import type { AuditBatch } from "./model";
import { createAuditLog, type AuditLog } from "./log";

/**
 * The audit batch thread, built (node scripts/build.mjs): its own connection to the embedded store's
 * file, one chain with the main connection's appends, and what happens when it stops.
 */
const workerFile = pathToFileURL(path.resolve("build/server/audit-batch-worker.js"));
let dir: string;
let db: Db;
let rel: Relational;
let audit: AuditLog;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "audit-thread-"));
  db = openDatabase(dir);
  rel = openSqliteRelational(db);
  audit = await createAuditLog(rel, db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const batchOf = (n: number, tag: string): AuditBatch =>
  Array.from({ length: n }, (_, i) => ({
    input: { action: "federated.query", actor: "researcher", target: `${tag}-${i}`, kind: "insight" },
    at: new Date(),
  }));

describe("the audit batch thread", () => {
  it("is found beside the server bundle, and not beside the sources", () => {
    expect(builtAuditWorkerFile(pathToFileURL(path.resolve("build/server/index.js")))?.href).toBe(
      workerFile.href,
    );
    expect(builtAuditWorkerFile()).toBeUndefined();
  });

  it("writes on a thread for a store in a file; on the main thread in memory, without the built file, or when told not to", async () => {
    const threaded = await startAuditBatchWriter({ audit, rel, db, workerFile });
    expect(threaded.where).toBe("thread");
    await threaded.close();
    expect((await startAuditBatchWriter({ audit, rel, db, workerFile: null })).where).toBe("inline");
    // beside the sources there is no built file
    expect((await startAuditBatchWriter({ audit, rel, db })).where).toBe("inline");
    const memory = openDatabase(":memory:");
    const memRel = openSqliteRelational(memory);
    const memAudit = await createAuditLog(memRel, memory);
    expect(
      (await startAuditBatchWriter({ audit: memAudit, rel: memRel, db: memory, workerFile })).where,
    ).toBe("inline");
    memory.close();
  });

  it("keeps one chain with the main connection's appends while both write: no SQLITE_BUSY, every entry in order", async () => {
    const graph = createSqliteGraphStore(db, audit);
    const writer = await startAuditBatchWriter({ audit, rel, db, workerFile });
    const batches = 30;
    const perBatch = 300;
    // the thread writes batch after batch (each an IMMEDIATE transaction with its fsync) ...
    const threadWrites = Array.from({ length: batches }, (_, b) => writer.write(batchOf(perBatch, `b${b}`)));
    // ... while the main connection reads the chain's head and then appends, in transactions of its
    // own: a deferred transaction would fail with SQLITE_BUSY when the thread holds the write lock
    // or has committed since its read (decision 0034)
    let mainWrites = 0;
    for (let i = 0; i < 150; i++) {
      await audit.append({ action: "policy.update", actor: "admin", target: `p${i}`, kind: "policy" });
      await graph.mutate(
        [{ op: "createNode", node: { id: `n${i}`, label: "HealthDataset", layer: "l2", properties: {} } }],
        {
          action: "graph.create",
          actor: "admin",
          target: `n${i}`,
          kind: "graph",
        },
      );
      mainWrites += 2;
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(threadWrites);
    await writer.close();
    expect(await audit.count()).toBe(batches * perBatch + mainWrites);
    expect(await audit.verify()).toEqual({ ok: true, checked: batches * perBatch + mainWrites });
    // a batch's entries are consecutive in the chain, and batches keep the order they were sent in
    const insight = (await audit.list({ kind: "insight", limit: batches * perBatch })).reverse();
    expect(insight.map((e) => e.target)).toEqual(
      Array.from({ length: batches }, (_, b) =>
        Array.from({ length: perBatch }, (_, i) => `b${b}-${i}`),
      ).flat(),
    );
    for (let b = 0; b < batches; b++) {
      const seqs = insight.slice(b * perBatch, (b + 1) * perBatch).map((e) => e.seq);
      expect(seqs[seqs.length - 1]! - seqs[0]!).toBe(perBatch - 1);
    }
  });

  it("feeds the insight query log: flush awaits the thread's commit", async () => {
    const writer = await startAuditBatchWriter({ audit, rel, db, workerFile });
    const log = createQueryLog(writer, 60_000);
    for (let i = 0; i < 500; i++)
      log.append({ action: "nlq.ask", actor: "researcher", target: `q${i}`, kind: "insight" });
    expect(await audit.count()).toBe(0);
    await log.flush();
    expect(await audit.count()).toBe(500);
    await writer.close();
    await expect(writer.write(batchOf(1, "late"))).rejects.toThrow("the audit batch writer is closed");
    expect(await audit.verify()).toEqual({ ok: true, checked: 500 });
  });

  it("moves the log's version once the thread has committed a batch, before the write is acknowledged", async () => {
    const writer = await startAuditBatchWriter({ audit, rel, db, workerFile });
    const before = await audit.version();
    await writer.write(batchOf(3, "v"));
    // kept answers of the log (server/http/kept) are rebuilt at the next read
    expect(await audit.version()).toBeGreaterThan(before);
    expect(await audit.count()).toBe(3);
    await writer.close();
  });

  it("answers every batch sent before close, then ends the thread", async () => {
    const writer = await startAuditBatchWriter({ audit, rel, db, workerFile });
    const sent = Array.from({ length: 5 }, (_, b) => writer.write(batchOf(100, `c${b}`)));
    await writer.close();
    await Promise.all(sent);
    expect(await audit.count()).toBe(500);
  });

  it("refuses a batch it cannot write, and writes the next", async () => {
    const writer = await startAuditBatchWriter({ audit, rel, db, workerFile });
    const bad = [{ input: { action: "x", actor: "y", target: "z", kind: null }, at: new Date() }];
    await expect(writer.write(bad as unknown as AuditBatch)).rejects.toThrow(/NOT NULL/);
    await writer.write(batchOf(3, "after"));
    await writer.close();
    expect(await audit.count()).toBe(3);
  });

  it("when the thread stops on its own: the batch it held is refused, later ones go to the main thread", async () => {
    // a thread that starts and then dies on the first batch (a crash cannot be caused otherwise)
    const dying = path.join(dir, "dying-worker.mjs");
    writeFileSync(
      dying,
      `import { parentPort } from "node:worker_threads";
parentPort.postMessage({ type: "ready" });
parentPort.once("message", () => process.exit(3));`,
    );
    const errors: string[] = [];
    const writer = await startAuditBatchThread({
      file: db.name,
      key: audit.key.secret,
      workerFile: pathToFileURL(dying),
      fallback: inlineBatchWriter(audit, rel),
      onError: (m) => errors.push(m),
    });
    await expect(writer.write(batchOf(2, "lost"))).rejects.toThrow(
      "the audit batch thread stopped before it answered; the batch may not be written",
    );
    expect(errors).toEqual([
      "the batch thread stopped (exit code 3); batches are written on the main thread",
    ]);
    await writer.write(batchOf(4, "kept"));
    expect((await audit.list({ kind: "insight" })).map((e) => e.target)).toEqual([
      "kept-3",
      "kept-2",
      "kept-1",
      "kept-0",
    ]);
    await writer.close();
  });

  it("when the thread does not start, the server still does: its batches are written on the main thread", async () => {
    const refusing = path.join(dir, "refusing-worker.mjs");
    writeFileSync(
      refusing,
      `import { parentPort } from "node:worker_threads";
parentPort.postMessage({ type: "failed", message: "no such table: audit_entries" });`,
    );
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const writer = await startAuditBatchWriter({ audit, rel, db, workerFile: pathToFileURL(refusing) });
    expect(writer.where).toBe("inline");
    expect(error.mock.calls.map((c) => String(c[0]))).toEqual([
      "[audit] the audit batch thread did not start: no such table: audit_entries; batches are written on the main thread",
    ]);
    error.mockRestore();
    await writer.write(batchOf(2, "inline"));
    expect(await audit.count()).toBe(2);
  });

  it("does not start on a file it cannot open", async () => {
    await expect(
      startAuditBatchThread({
        file: path.join(dir, "not-a-dir", "\0bad"),
        key: audit.key.secret,
        workerFile,
        fallback: inlineBatchWriter(audit, rel),
      }),
    ).rejects.toThrow(/the audit batch thread did not start/);
  });
});
