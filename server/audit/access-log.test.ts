import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type Db } from "../storage/database";
import { openSqliteRelational } from "../storage/relational/sqlite";
import { pageRefusal } from "../http/remix-answer";
import { AUDIT_UNAVAILABLE, createAccessLog, type AccessLog } from "./access-log";
import type { AuditBatch } from "./model";
import { inlineBatchWriter } from "./batch-writer";
import { createAuditLog, type AuditLog } from "./log";

/** Looks at records and refusals on record, through the batch writer, coalesced per window (issue 34). */
let db: Db;
let audit: AuditLog;
let log: AccessLog;
beforeEach(async () => {
  db = openDatabase(":memory:");
  const rel = openSqliteRelational(db);
  audit = await createAuditLog(rel, db);
  log = createAccessLog(inlineBatchWriter(audit, rel), audit, { windowMs: 3_600_000, maxKeys: 100 });
});
afterEach(async () => {
  await log.close();
  db.close();
});

describe("the access log", () => {
  it("puts each look on record: who, what, which patient, the outcome", async () => {
    log.read({ actor: "clinic", action: "patient.profile.read", patientId: "patient-000007" });
    log.read({
      actor: "lmc",
      action: "patient.profile.read",
      patientId: "patient-000007",
      outcome: "refused: held by another organisation",
    });
    // batched: nothing is written by the call itself
    expect(await audit.count()).toBe(0);
    await log.flush();
    expect(
      (await log.ofPatient("patient-000007")).map(({ actor, action, target, outcome, kind }) => ({
        actor,
        action,
        target,
        outcome,
        kind,
      })),
    ).toEqual([
      {
        actor: "lmc",
        action: "patient.profile.read",
        target: "patient-000007",
        outcome: "refused: held by another organisation",
        kind: "patient",
      },
      {
        actor: "clinic",
        action: "patient.profile.read",
        target: "patient-000007",
        outcome: "success",
        kind: "patient",
      },
    ]);
    expect(await log.ofPatient("patient-000008")).toEqual([]);
    expect(await audit.verify()).toMatchObject({ ok: true, checked: 2 });
  });

  it("writes a flood of identical refusals as two entries: the first, and a count of the rest", async () => {
    for (let i = 0; i < 5000; i++) log.refused({ actor: null, what: "GET /api/patient", status: 401 });
    log.refused({ actor: "researcher", what: "GET /api/patient", status: 403 });
    await log.flush();
    const entries = (await audit.list({ kind: "access" })).reverse();
    expect(entries.map(({ action, actor, target, outcome }) => ({ action, actor, target, outcome }))).toEqual(
      [
        {
          action: "request.refused",
          actor: "anonymous",
          target: "GET /api/patient",
          outcome: "refused (401)",
        },
        {
          action: "request.refused",
          actor: "researcher",
          target: "GET /api/patient",
          outcome: "refused (403)",
        },
        {
          action: "request.refused",
          actor: "anonymous",
          target: "GET /api/patient",
          outcome: expect.stringMatching(/^refused \(401\), 4999 more times since \d{4}-\d\d-\d\dT/),
        },
      ],
    );
    // the window starts over: the next refusal is written again
    log.refused({ actor: null, what: "GET /api/patient", status: 401 });
    await log.flush();
    expect(await audit.count()).toBe(4);
  });

  it("puts an answer that shows several patients on each one's record, and counts its repeats by the answer", async () => {
    const shown = Object.freeze(["patient-000007", "patient-000008"]);
    for (let i = 0; i < 3; i++) log.readAll({ actor: "clinic", action: "graph.read", patientIds: shown });
    // another answer with the same patients is another look
    log.readAll({ actor: "clinic", action: "graph.read", patientIds: ["patient-000008"] });
    log.readAll({ actor: "clinic", action: "graph.read", patientIds: [] });
    await log.flush();
    const looks = async (id: string) =>
      (await log.ofPatient(id)).map((e) => `${e.actor} ${e.action} ${e.outcome}`);
    expect(await looks("patient-000007")).toEqual([
      expect.stringMatching(/^clinic graph\.read success, 2 more times since /),
      "clinic graph.read success",
    ]);
    expect(await looks("patient-000008")).toEqual([
      expect.stringMatching(/^clinic graph\.read success, 2 more times since /),
      "clinic graph.read success",
      "clinic graph.read success",
    ]);
    expect(await audit.count()).toBe(5);
  });

  it("holds a bounded number of callers and routes: when full, the counts are written and the window starts over", async () => {
    for (let i = 0; i < 250; i++) {
      log.refused({ actor: `user-${i}`, what: "GET /api/admin/audit", status: 403 });
      log.refused({ actor: `user-${i}`, what: "GET /api/admin/audit", status: 403 });
    }
    await log.flush();
    // 250 first refusals, and 250 counts of one more: never more than two entries per key and window
    expect(await audit.count()).toBe(500);
  });

  it("resolves a look once its entry is committed; a repeat waits for the first look's entry", async () => {
    const look = { actor: "clinic", action: "patient.profile.read", patientId: "patient-000007" };
    const first = log.read(look);
    const repeat = log.read(look);
    expect(await audit.count()).toBe(0);
    await first;
    expect(await audit.count()).toBe(1); // no flush: the batch that holds it is committed
    await repeat;
  });

  it("refuses a look whose entry cannot be written (503, AUDIT_UNAVAILABLE), and its repeats; the next look is a first look", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const rel = openSqliteRelational(db);
    const inline = inlineBatchWriter(audit, rel);
    let down = true;
    // the writer down: every write refused, as a closed writer's are
    const writer = {
      ...inline,
      write: (b: AuditBatch) =>
        down ? Promise.reject(new Error("the audit batch writer is closed")) : inline.write(b),
    };
    const failing = createAccessLog(writer, audit, { waitMs: 300 });
    const look = { actor: "clinic", action: "patient.profile.read", patientId: "patient-000007" };
    const refused = { status: 503, message: AUDIT_UNAVAILABLE };
    await Promise.all([
      expect(failing.read(look)).rejects.toMatchObject(refused),
      expect(failing.read(look)).rejects.toMatchObject(refused),
    ]);
    expect(await audit.count()).toBe(0);
    down = false;
    await failing.read(look);
    expect(await audit.count()).toBe(1);
    await failing.close();
    errors.mockRestore();
  });

  it("reads a page's refusal, and names it by the page's first segment only", () => {
    const r = (status: number, headers: Record<string, string> = {}) =>
      new Response(null, { status, headers });
    expect(pageRefusal("http://h/patients/patient-000001", r(403))).toEqual({
      what: "page /patients",
      status: 403,
    });
    expect(
      pageRefusal("http://h/audit?q=x", r(302, { location: "/auth/signin?returnTo=%2Faudit%3Fq%3Dx" })),
    ).toEqual({ what: "page /audit", status: 401 });
    expect(
      pageRefusal("http://h/patients/x.data", r(202, { "x-remix-redirect": "/auth/signin?returnTo=x" })),
    ).toEqual({ what: "page /patients", status: 401 });
    expect(pageRefusal("http://h/%3Cscript%3E/x", r(403))).toEqual({ what: "page /(other)", status: 403 });
    expect(pageRefusal("http://h/patients", r(200))).toBeUndefined();
    expect(pageRefusal("http://h/patients", r(302, { location: "/my-record" }))).toBeUndefined();
  });
});
