import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { inlineBatchWriter } from "./batch-writer";
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
