import { ApiError } from "../http/errors";
import { createQueryLog } from "./query-log";
import type { AuditBatchWriter } from "./batch-writer";
import type { AuditLog } from "./log";
import type { AuditEntry, AuditInput } from "./model";

/**
 * Who looked at whom, and who was turned away (issue 34, decision 0044): every read of an identified
 * patient's data by someone other than the patient, and every refused request (401, 403, API and
 * page), is an audit entry — who (`actor`), what (`action`), which patient or route (`target`), and
 * the outcome. They go through the audit's batch writer (server/audit/batch-writer.ts: its own thread
 * on the embedded store, decision 0034): a look resolves once the batch holding its entry is committed
 * (group commit, not a transaction per look) and is answered only then; when the entry cannot be
 * written in time (server/audit/query-log.ts) it rejects with 503 `AUDIT_UNAVAILABLE`, and the data
 * is not sent.
 *
 * The same look repeated within a window is one more count, not one more entry: the first is written
 * at once (in the next batch; its repeats wait for it too), the repeats as one entry "… N more times
 * since …" when the window ends (that count is held in memory: a crash can lose it, not a first look).
 * So a flood of refusals — an attack sends thousands — or a client polling one record writes at most
 * two entries per caller, action and target a minute, and the keys held meanwhile are bounded
 * (`maxKeys`: when full, the repeats are written and the window starts over). A target is never text
 * the caller chose: a patient id that exists, a route of the route table, a page's first segment.
 */
export interface AccessLog {
  /** a read of identified patient data (kind "patient" unless told); `outcome` defaults to "success" */
  read(look: {
    actor: string;
    action: string;
    patientId: string;
    outcome?: string;
    kind?: string;
  }): Promise<void>;
  /**
   * one answer that showed several patients' identified data (a graph sample, a neighbourhood): an
   * entry for each patient, as `read` writes. Its repeats are counted by the answer, so pass the same
   * (frozen) array for the same answer: a client polling it costs one map lookup, not one per patient.
   */
  readAll(look: { actor: string; action: string; patientIds: readonly string[] }): Promise<void>;
  /** a refused request: `what` names the route ("GET /api/patient/profile") or page ("page /patients") */
  refused(refusal: { actor: string | null; what: string; status: number }): Promise<void>;
  /** writes what is held now (repeats included) and resolves once it is in the audit log */
  flush(): Promise<void>;
  /** the looks at one patient's record, newest first: what the patient's own page shows */
  ofPatient(patientId: string, limit?: number): Promise<AuditEntry[]>;
  /** stops the window's timer (after a last flush) */
  close(): Promise<void>;
}

/** the kind of the reads (retention: EHDS Art. 9(2), three years); refusals are of kind "access" */
export const READ_KIND = "patient";
/** the answer to a look whose entry cannot be written: the data is not sent */
export const AUDIT_UNAVAILABLE =
  "The audit log cannot record this read now; nothing was shown, try again later";
export const auditUnavailable = () =>
  new ApiError(503, AUDIT_UNAVAILABLE, undefined, undefined, { "Retry-After": "5" });

export function createAccessLog(
  writer: AuditBatchWriter | undefined,
  audit: AuditLog,
  opts: { windowMs?: number; maxKeys?: number; waitMs?: number } = {},
): AccessLog {
  const windowMs = opts.windowMs ?? 60_000;
  const maxKeys = opts.maxKeys ?? 10_000;
  // batched through the audit's writer; without one (a service built alone) each entry at once
  const queue = writer ? createQueryLog(writer, undefined, opts.waitMs) : undefined;
  const write = (input: AuditInput): Promise<void> =>
    queue ? queue.append(input) : audit.append(input).then(() => {});

  const held = new Map<
    string,
    { inputs: readonly AuditInput[]; repeats: number; since: string; written: Promise<void> }
  >();
  function writeRepeats() {
    for (const h of held.values())
      if (h.repeats > 0)
        for (const input of h.inputs)
          void write({
            ...input,
            outcome: `${input.outcome ?? "success"}, ${h.repeats} more ${h.repeats === 1 ? "time" : "times"} since ${h.since}`,
          });
    held.clear();
  }
  const timer = setInterval(writeRepeats, windowMs);
  timer.unref();

  /** the entries `inputs` of one look under `key`: written the first time, counted while the window lasts */
  function note(key: string, inputs: () => readonly AuditInput[]): Promise<void> {
    const h = held.get(key);
    if (h) {
      h.repeats++;
      return h.written;
    }
    if (held.size >= maxKeys) writeRepeats();
    const entries = inputs();
    // one batch holds them all: each resolves when it is committed
    const written = Promise.all(entries.map(write)).then(
      () => {},
      () => {
        // not on record: the look is refused, and the next one is a first look again
        if (held.get(key)?.written === written) held.delete(key);
        throw auditUnavailable();
      },
    );
    written.catch(() => {}); // a caller that does not wait leaves no unhandled rejection
    held.set(key, { inputs: entries, repeats: 0, since: new Date().toISOString(), written });
    return written;
  }
  const noteOne = (input: AuditInput) =>
    note(`${input.kind}\0${input.action}\0${input.actor}\0${input.target}\0${input.outcome ?? ""}`, () => [
      input,
    ]);
  // the answers of readAll by identity: a number each, for their keys
  const answers = new WeakMap<readonly string[], number>();
  let answerCount = 0;

  return {
    read({ actor, action, patientId, outcome, kind }) {
      return noteOne({
        action,
        actor,
        target: patientId,
        outcome: outcome ?? "success",
        kind: kind ?? READ_KIND,
      });
    },
    readAll({ actor, action, patientIds }) {
      if (!patientIds.length) return Promise.resolve();
      let answer = answers.get(patientIds);
      if (answer === undefined) answers.set(patientIds, (answer = ++answerCount));
      return note(`${READ_KIND}\0${action}\0${actor}\0#${answer}`, () =>
        patientIds.map((target) => ({ action, actor, target, outcome: "success", kind: READ_KIND })),
      );
    },
    refused({ actor, what, status }) {
      return noteOne({
        action: "request.refused",
        actor: actor ?? "anonymous",
        target: what,
        outcome: `refused (${status})`,
        kind: "access",
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
