import { createQueryLog } from "./query-log";
import type { AuditBatchWriter } from "./batch-writer";
import type { AuditLog } from "./log";
import type { AuditEntry, AuditInput } from "./model";

/**
 * Who looked at whom, and who was turned away (issue 34, decision 0044): every read of an identified
 * patient's data by someone other than the patient, and every refused request (401, 403, API and
 * page), is an audit entry — who (`actor`), what (`action`), which patient or route (`target`), and
 * the outcome. They go through the audit's batch writer (server/audit/batch-writer.ts: its own thread
 * on the embedded store, decision 0034), so a read costs a push onto a queue, not a transaction.
 *
 * The same look repeated within a window is one more count, not one more entry: the first is written
 * at once (in the next batch), the repeats as one entry "… N more times since …" when the window ends.
 * So a flood of refusals — an attack sends thousands — or a client polling one record writes at most
 * two entries per caller, action and target a minute, and the keys held meanwhile are bounded
 * (`maxKeys`: when full, the repeats are written and the window starts over). A target is never text
 * the caller chose: a patient id that exists, a route of the route table, a page's first segment.
 */
export interface AccessLog {
  /** a read of identified patient data (kind "patient"); `outcome` defaults to "success" */
  read(look: { actor: string; action: string; patientId: string; outcome?: string }): void;
  /** a refused request: `what` names the route ("GET /api/patient/profile") or page ("page /patients") */
  refused(refusal: { actor: string | null; what: string; status: number }): void;
  /** writes what is held now (repeats included) and resolves once it is in the audit log */
  flush(): Promise<void>;
  /** the looks at one patient's record, newest first: what the patient's own page shows */
  ofPatient(patientId: string, limit?: number): Promise<AuditEntry[]>;
  /** stops the window's timer (after a last flush) */
  close(): Promise<void>;
}

export const ACCESS_WINDOW_MS = 60_000;
export const ACCESS_MAX_KEYS = 10_000;
/** the kind of the reads (retention: EHDS Art. 9(2), three years) and of the refusals */
export const READ_KIND = "patient";
export const REFUSAL_KIND = "access";
export const REFUSED_ACTION = "request.refused";

export function createAccessLog(
  writer: AuditBatchWriter | undefined,
  audit: AuditLog,
  opts: { windowMs?: number; maxKeys?: number } = {},
): AccessLog {
  const windowMs = opts.windowMs ?? ACCESS_WINDOW_MS;
  const maxKeys = opts.maxKeys ?? ACCESS_MAX_KEYS;
  // batched through the audit's writer; without one (a service built alone) each entry at once
  const queue = writer ? createQueryLog(writer) : undefined;
  const write = (input: AuditInput) =>
    queue
      ? queue.append(input)
      : void audit.append(input).catch((e) => console.error("[audit] access entry not written:", e));

  const held = new Map<string, { input: AuditInput; repeats: number; since: string }>();
  function writeRepeats() {
    for (const h of held.values())
      if (h.repeats > 0)
        write({
          ...h.input,
          outcome: `${h.input.outcome ?? "success"}, ${h.repeats} more ${h.repeats === 1 ? "time" : "times"} since ${h.since}`,
        });
    held.clear();
  }
  const timer = setInterval(writeRepeats, windowMs);
  timer.unref();

  function note(input: AuditInput) {
    const key = `${input.kind}\0${input.action}\0${input.actor}\0${input.target}\0${input.outcome ?? ""}`;
    const h = held.get(key);
    if (h) {
      h.repeats++;
      return;
    }
    if (held.size >= maxKeys) writeRepeats();
    held.set(key, { input, repeats: 0, since: new Date().toISOString() });
    write(input);
  }

  return {
    read({ actor, action, patientId, outcome }) {
      note({ action, actor, target: patientId, outcome: outcome ?? "success", kind: READ_KIND });
    },
    refused({ actor, what, status }) {
      note({
        action: REFUSED_ACTION,
        actor: actor ?? "anonymous",
        target: what,
        outcome: `refused (${status})`,
        kind: REFUSAL_KIND,
      });
    },
    async flush() {
      writeRepeats();
      await queue?.flush();
    },
    ofPatient: (patientId, limit = 50) => audit.list({ kind: READ_KIND, target: patientId, limit }),
    async close() {
      clearInterval(timer);
      await this.flush();
    },
  };
}
