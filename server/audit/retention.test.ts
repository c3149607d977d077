import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openTestStore, storeDialects, type TestStore } from "../../tests/support/relational";
import { createAuditLog } from "./log";
import { createRetentionService, ruleFor, RETENTION_MAX_DAYS } from "./retention";

const DAY = 86_400_000;

describe.each(storeDialects())("audit retention on %s", (dialect) => {
  let store: TestStore;
  afterEach(() => store?.close());
  const open = async () => {
    store = await openTestStore(dialect);
    return store.rel;
  };

  it("refuses a period below the floor of the kind, and above the maximum", async () => {
    const rel = await open();
    const svc = await createRetentionService(rel, await createAuditLog(rel));
    await expect(svc.set("consent", 365, "admin")).rejects.toThrow(
      /cannot be shorter than 1096 days.*Art\. 9\(2\)/,
    );
    await expect(svc.set("access-body", 100, "admin")).rejects.toThrow(
      /cannot be shorter than 366 days.*Art\. 73/,
    );
    await expect(svc.set("brand-new-kind", 400, "admin")).rejects.toThrow(/1096 days/);
    await expect(svc.set("consent", RETENTION_MAX_DAYS + 1, "admin")).rejects.toThrow(/cannot be longer/);
    const row = await svc.set("consent", 2000, "admin");
    expect(row).toMatchObject({
      kind: "consent",
      days: 2000,
      source: "set",
      setBy: "admin",
      minimumDays: 1096,
    });
    expect(ruleFor("dataspace").minimumDays).toBe(366);
  });

  it("purges entries past their period, keeps tombstones, and the chain still verifies", async () => {
    const rel = await open();
    const log = await createAuditLog(rel);
    const svc = await createRetentionService(rel, log);
    const now = new Date("2030-06-01T00:00:00Z");
    const old = new Date(now.getTime() - 400 * DAY);
    await log.append({ action: "a", actor: "x", target: "1", kind: "dataspace" }, { at: old });
    await log.append({ action: "b", actor: "x", target: "2", kind: "consent" }, { at: old });
    await log.append({ action: "c", actor: "x", target: "3", kind: "dataspace" }, { at: old });
    await log.append(
      { action: "d", actor: "x", target: "4", kind: "dataspace" },
      { at: new Date(now.getTime() - 10 * DAY) },
    );
    expect((await svc.list(now)).find((r) => r.kind === "dataspace")?.due).toBe(2);
    const report = await svc.purge("admin", now);
    expect(report).toMatchObject({ total: 2, purged: { dataspace: 2 } });
    // the consent entry (three-year floor) stays; the purge is itself recorded
    expect(await log.list({ kind: "consent" })).toHaveLength(1);
    expect((await log.list({ kind: "audit" }))[0]).toMatchObject({
      action: "audit.purge",
      outcome: expect.stringMatching(/2 entries/),
    });
    expect(await log.verify()).toEqual({ ok: true, checked: 3 });
    expect((await log.kinds()).find((k) => k.kind === "dataspace")).toMatchObject({ entries: 1, purged: 2 });
    // tombstones cannot be changed, and a tampered tombstone breaks the chain
    await expect(sql`UPDATE audit_purged SET hash = 'x' WHERE seq = 1`.execute(rel.db)).rejects.toThrow(
      /append-only/,
    );
    await sql
      .raw(
        dialect === "postgres"
          ? "DROP TRIGGER audit_purged_no_change ON audit_purged"
          : "DROP TRIGGER audit_purged_no_update",
      )
      .execute(rel.db);
    await sql`UPDATE audit_purged SET hash = ${"f".repeat(64)} WHERE seq = 1`.execute(rel.db);
    // the tombstone's signature (audit key) no longer covers what it says
    expect(await log.verify()).toMatchObject({
      ok: false,
      firstBroken: { seq: 1, reason: "tombstone is not signed with the audit key" },
    });
  });

  it("links a new entry to a purged head", async () => {
    const rel = await open();
    const log = await createAuditLog(rel);
    const old = new Date(Date.now() - 500 * DAY);
    const only = await log.append({ action: "a", actor: "x", target: "1", kind: "graph" }, { at: old });
    expect(await log.purge("graph", new Date().toISOString())).toBe(1);
    const next = await log.append({ action: "b", actor: "x", target: "2", kind: "graph" });
    expect(next.seq).toBe(only.seq + 1);
    expect(next.prevHash).toBe(only.hash);
    expect(await log.verify()).toEqual({ ok: true, checked: 1 });
  });

  it("filters the list by outcome, period, text and seq", async () => {
    const rel = await open();
    const log = await createAuditLog(rel);
    await log.append(
      { action: "policy.create", actor: "admin", target: "policy-1", kind: "policy" },
      { at: new Date("2030-01-01T00:00:00Z") },
    );
    await log.append(
      { action: "policy.delete", actor: "regulator", target: "policy_2", kind: "policy", outcome: "failure" },
      { at: new Date("2030-02-01T00:00:00Z") },
    );
    expect((await log.list({ outcome: "failure" })).map((e) => e.target)).toEqual(["policy_2"]);
    expect((await log.list({ until: "2030-01-15T00:00:00.000Z" })).map((e) => e.target)).toEqual([
      "policy-1",
    ]);
    expect((await log.list({ q: "REGUL" })).map((e) => e.actor)).toEqual(["regulator"]);
    expect((await log.list({ q: "_" })).map((e) => e.target)).toEqual(["policy_2"]);
    expect((await log.list({ beforeSeq: 2 })).map((e) => e.seq)).toEqual([1]);
  });
});
