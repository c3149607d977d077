import { describe, expect, it } from "vitest";
import { openDatabase } from "../storage/database";
import { createAuditLog } from "./log";
import { GENESIS_HASH } from "./model";

describe("audit log", () => {
  it("chains entries by hash and verifies the chain", () => {
    const db = openDatabase(":memory:");
    const log = createAuditLog(db);
    const a = log.append({ action: "catalogue.create", actor: "clinic", target: "ds-1", kind: "catalogue" });
    const b = log.append({
      action: "catalogue.delete",
      actor: "admin",
      target: "ds-1",
      kind: "catalogue",
      outcome: "success",
    });
    expect(a.prevHash).toBe(GENESIS_HASH);
    expect(b.prevHash).toBe(a.hash);
    expect(b.seq).toBe(a.seq + 1);
    expect(log.verify()).toEqual({ ok: true, checked: 2 });
    expect(log.list({ limit: 1 })).toEqual([b]);
    expect(log.list({ actor: "clinic" })).toEqual([a]);
  });

  it("refuses updates in the database and reports the first broken link when rows are tampered with", () => {
    const db = openDatabase(":memory:");
    const log = createAuditLog(db);
    for (let i = 0; i < 5; i++) log.append({ action: "x", actor: "a", target: `t${i}`, kind: "k" });
    expect(() => db.prepare("UPDATE audit_entries SET actor = 'mallory' WHERE seq = 3").run()).toThrow(
      /append-only/,
    );
    // an attacker with file access drops the trigger and edits an entry
    db.exec("DROP TRIGGER audit_entries_no_update");
    db.prepare("UPDATE audit_entries SET actor = 'mallory' WHERE seq = 3").run();
    const v = log.verify();
    expect(v).toMatchObject({
      ok: false,
      checked: 2,
      firstBroken: { seq: 3, reason: "entry content does not match its hash" },
    });
    db.prepare("DELETE FROM audit_entries WHERE seq = 3").run();
    expect(log.verify()).toMatchObject({ ok: false, firstBroken: { seq: 4, reason: "entry 3 is missing" } });
  });
});
