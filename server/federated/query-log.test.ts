import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "../audit/log";
import { createQueryLog } from "./query-log";

describe.each(storeDialects())("insight query log on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());

  it("writes a batch in one transaction, each entry with the time of its query; flush awaits what is pending", async () => {
    store = await openTestStore(dialect);
    const audit = await createAuditLog(store.rel);
    const log = createQueryLog(audit, store.rel, 60_000);
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
    const log = createQueryLog(audit, store.rel, 20);
    log.append({ action: "federated.query", actor: "admin", target: "drug=metformin", kind: "insight" });
    await expect.poll(() => audit.count(), { timeout: 2000 }).toBe(1);
    await log.flush();
  });
});
