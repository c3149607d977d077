import { describe, expect, it } from "vitest";
import { openDatabase } from "../storage/database";
import { createAuditLog } from "./log";
import { createRetentionService, ruleFor, RETENTION_MAX_DAYS } from "./retention";

const DAY = 86_400_000;

describe("audit retention", () => {
  it("refuses a period below the floor of the kind, and above the maximum", () => {
    const db = openDatabase(":memory:");
    const svc = createRetentionService(db, createAuditLog(db));
    expect(() => svc.set("consent", 365, "admin")).toThrow(/cannot be shorter than 1096 days.*Art\. 9\(2\)/);
    expect(() => svc.set("access-body", 100, "admin")).toThrow(/cannot be shorter than 366 days.*Art\. 73/);
    expect(() => svc.set("brand-new-kind", 400, "admin")).toThrow(/1096 days/);
    expect(() => svc.set("consent", RETENTION_MAX_DAYS + 1, "admin")).toThrow(/cannot be longer/);
    const row = svc.set("consent", 2000, "admin");
    expect(row).toMatchObject({
      kind: "consent",
      days: 2000,
      source: "set",
      setBy: "admin",
      minimumDays: 1096,
    });
    expect(ruleFor("dataspace").minimumDays).toBe(366);
  });

  it("purges entries past their period, keeps tombstones, and the chain still verifies", () => {
    const db = openDatabase(":memory:");
    const log = createAuditLog(db);
    const svc = createRetentionService(db, log);
    const now = new Date("2030-06-01T00:00:00Z");
    const old = new Date(now.getTime() - 400 * DAY);
    log.append({ action: "a", actor: "x", target: "1", kind: "dataspace" }, old);
    log.append({ action: "b", actor: "x", target: "2", kind: "consent" }, old);
    log.append({ action: "c", actor: "x", target: "3", kind: "dataspace" }, old);
    log.append(
      { action: "d", actor: "x", target: "4", kind: "dataspace" },
      new Date(now.getTime() - 10 * DAY),
    );
    expect(svc.get("dataspace", now).due).toBe(2);
    const report = svc.purge("admin", now);
    expect(report).toMatchObject({ total: 2, purged: { dataspace: 2 } });
    // the consent entry (three-year floor) stays; the purge is itself recorded
    expect(log.list({ kind: "consent" })).toHaveLength(1);
    expect(log.list({ kind: "audit" })[0]).toMatchObject({
      action: "audit.purge",
      outcome: expect.stringMatching(/2 entries/),
    });
    expect(log.verify()).toEqual({ ok: true, checked: 3 });
    expect(log.kinds().find((k) => k.kind === "dataspace")).toMatchObject({ entries: 1, purged: 2 });
    // tombstones cannot be changed, and a tampered tombstone breaks the chain
    expect(() => db.prepare("UPDATE audit_purged SET hash = 'x' WHERE seq = 1").run()).toThrow(/append-only/);
    db.exec("DROP TRIGGER audit_purged_no_update");
    db.prepare("UPDATE audit_purged SET hash = ? WHERE seq = 1").run("f".repeat(64));
    expect(log.verify()).toMatchObject({
      ok: false,
      firstBroken: { seq: 2, reason: "link to the previous entry does not match" },
    });
  });

  it("links a new entry to a purged head", () => {
    const db = openDatabase(":memory:");
    const log = createAuditLog(db);
    const old = new Date(Date.now() - 500 * DAY);
    const only = log.append({ action: "a", actor: "x", target: "1", kind: "graph" }, old);
    expect(log.purge("graph", new Date().toISOString())).toBe(1);
    const next = log.append({ action: "b", actor: "x", target: "2", kind: "graph" });
    expect(next.seq).toBe(only.seq + 1);
    expect(next.prevHash).toBe(only.hash);
    expect(log.verify()).toEqual({ ok: true, checked: 1 });
  });

  it("filters the list by outcome, period, text and seq", () => {
    const db = openDatabase(":memory:");
    const log = createAuditLog(db);
    log.append(
      { action: "policy.create", actor: "admin", target: "policy-1", kind: "policy" },
      new Date("2030-01-01T00:00:00Z"),
    );
    log.append(
      { action: "policy.delete", actor: "regulator", target: "policy_2", kind: "policy", outcome: "failure" },
      new Date("2030-02-01T00:00:00Z"),
    );
    expect(log.list({ outcome: "failure" }).map((e) => e.target)).toEqual(["policy_2"]);
    expect(log.list({ until: "2030-01-15T00:00:00.000Z" }).map((e) => e.target)).toEqual(["policy-1"]);
    expect(log.list({ q: "REGUL" }).map((e) => e.actor)).toEqual(["regulator"]);
    expect(log.list({ q: "_" }).map((e) => e.target)).toEqual(["policy_2"]);
    expect(log.list({ beforeSeq: 2 }).map((e) => e.seq)).toEqual([1]);
  });
});
