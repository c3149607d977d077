import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { inlineBatchWriter, type AuditBatchWriter } from "./batch-writer";
import type { AuditBatch } from "./model";
import { createAuditLog } from "./log";
import { createQueryLog } from "./query-log";

describe.each(storeDialects())("insight query log on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  it("writes a batch in one transaction, each entry with the time of its query; flush awaits what is pending", async () => {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const log = createQueryLog(inlineBatchWriter(audit, store.rel), 60_000);
    const entry = (i: number) => ({
      action: "nlq.ask",
      actor: "researcher",
      target: `q${i}`,
      kind: "insight",
    });
    for (let i = 0; i < 5; i++) log.append(entry(i));
    expect(await audit.count()).toBe(0); // still pending: the batch waits for its timer
    await log.flush(); // as services.close does before the store closes
    const written = await audit.list({ kind: "insight" });
    expect(written.map((e) => e.target)).toEqual(["q4", "q3", "q2", "q1", "q0"]);
    expect(await audit.verify()).toEqual({ ok: true, checked: 5 });
    log.append(entry(5));
    await log.flush();
    await log.flush();
    expect(await audit.count()).toBe(6);
  });

  it("writes on its own after the delay", async () => {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const log = createQueryLog(inlineBatchWriter(audit, store.rel), 20);
    log.append({ action: "federated.query", actor: "admin", target: "drug=metformin", kind: "insight" });
    await expect.poll(() => audit.count(), { timeout: 2000 }).toBe(1);
    await log.flush();
  });

  it("on the embedded store, appends a batch synchronously in one transaction: the chain verifies across batches and other appends", async () => {
    store = await openTestStore(dialect);
    if (!store.db) return; // PostgreSQL: the compiled appends above
    const audit = await createAuditLog(store.rel, store.db);
    expect(audit.embedded).toBe(true);
    const log = createQueryLog(inlineBatchWriter(audit, store.rel), 60_000);
    const at = new Date("2026-11-25T07:00:00.000Z");
    for (let i = 0; i < 50; i++)
      log.append({ action: "federated.query", actor: "researcher", target: `q${i}`, kind: "insight" });
    await log.flush();
    await audit.append({ action: "other.write", actor: "admin", target: "x", kind: "dataspace" }, { at });
    log.append({ action: "nlq.ask", actor: "researcher", target: "q50", kind: "insight" });
    await log.flush();
    expect(await audit.count()).toBe(52);
    const written = await audit.list({ kind: "insight", limit: 100 });
    expect(written.map((e) => e.target)).toEqual(Array.from({ length: 51 }, (_, i) => `q${50 - i}`));
    expect(await audit.verify()).toEqual({ ok: true, checked: 52 });
  });
});

describe("a batch that cannot be written", () => {
  const entry = {
    action: "patient.profile.read",
    actor: "clinic",
    target: "patient-000011",
    kind: "patient",
  };
  /** a writer that fails its first `failures` writes, or all of them, or never answers */
  const writer = (failures: number | "never answers") => {
    const batches: AuditBatch[] = [];
    let calls = 0;
    const w: AuditBatchWriter = {
      where: "inline",
      intervalMs: 5,
      write: (batch) =>
        failures === "never answers"
          ? new Promise(() => {})
          : calls++ < failures
            ? Promise.reject(new Error("database is locked"))
            : (batches.push(batch), Promise.resolve()),
      close: async () => {},
    };
    return { w, batches, calls: () => calls };
  };
  let errors: ReturnType<typeof vi.spyOn>;
  beforeEach(() => (errors = vi.spyOn(console, "error").mockImplementation(() => {})));
  afterEach(() => errors.mockRestore());

  it("is tried again: the entry resolves once a try has written it", async () => {
    const { w, batches, calls } = writer(3);
    await createQueryLog(w, 5, 5_000).append(entry);
    expect(calls()).toBe(4);
    expect(batches.map((b) => b.map((e) => e.input))).toEqual([[entry]]);
  });

  it("refuses its entries when it still fails at the bound, and says so", async () => {
    const { w, batches } = writer(Infinity);
    const log = createQueryLog(w, 5, 400);
    const started = Date.now();
    await expect(log.append(entry)).rejects.toThrow("database is locked");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([]);
    expect(errors).toHaveBeenCalledWith(expect.stringMatching(/1 entries not written/), expect.any(Error));
    await log.flush(); // resolves: nothing left to wait for
  });

  it("refuses its entries at the bound when the write does not answer (a lock never let go)", async () => {
    const log = createQueryLog(writer("never answers").w, 5, 300);
    await expect(log.append(entry)).rejects.toThrow("not written in 300 ms");
  });
});
