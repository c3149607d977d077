import type { AuditFilter, AuditLog } from "../audit/log";
import type { AuditEntry } from "../audit/model";
import { findPersona } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { viewerOf, type Viewer } from "./policy";
import type { Redactor } from "./redact";

/**
 * The audit log as a reader may see it (server/privacy/policy.ts): the operator reads every entry
 * as written; the access body (and any reader without identities) reads entries whose patient
 * record ids are pseudonymised like everywhere else (`patient-000001` → `patient-x…`), whose
 * actor is the pseudonymised record when a patient acted (a patient persona's username, or a
 * wallet sign-in named by its record id), and without the entries' hashes: a hash is computed
 * over the stored text, so it would let anyone try every possible patient number until one
 * matches. The chain itself is verified on the server (`GET /api/admin/audit?verify=true`).
 *
 * For such a reader the text filters (`q`, `actor`, `outcome`) match what the reader sees, not the
 * stored text, so a search for a stored id cannot tell which pseudonym it stands for.
 */

export interface AuditView {
  list(filter: AuditFilter, reader: Pick<SessionUser, "roles"> & Partial<SessionUser>): Promise<AuditEntry[]>;
}

/** entries examined per step when the text filters run on minimised entries */
const SCAN_PAGE = 500;
/** at most this many entries are examined for one filtered page (the log keeps years of entries) */
export const SCAN_MAX = 200_000;

export function createAuditView(deps: {
  audit: Pick<AuditLog, "list">;
  redactor(viewer: Viewer): Promise<Redactor>;
  /** the patient records of the usernames that signed in as patients (server/auth/sessions.ts) */
  patientsOf?(usernames: readonly string[]): Promise<ReadonlyMap<string, string>>;
}): AuditView {
  const { audit } = deps;
  return {
    async list(filter, reader) {
      const viewer = viewerOf(reader);
      if (viewer.identities === "all") return audit.list(filter);
      const redact = await deps.redactor(viewer);
      // a page of entries as this reader may see them: a patient acting is named by their record (a
      // username a patient signed in with, a patient persona's), which the redactor pseudonymises
      const shownPage = async (page: AuditEntry[]) => {
        const patients = (await deps.patientsOf?.([...new Set(page.map((e) => e.actor))])) ?? new Map();
        return page.map((e) => shown(e, patients.get(e.actor) ?? findPersona(e.actor)?.patientId));
      };
      const shown = (e: AuditEntry, patientId: string | undefined): AuditEntry => ({
        ...e,
        actor: redact.text(patientId || e.actor),
        target: redact.text(e.target),
        outcome: redact.text(e.outcome),
        prevHash: "",
        hash: "",
      });
      const { q, actor, outcome, ...stored } = filter;
      if (!q && !actor && !outcome) return shownPage(await audit.list(stored));

      const limit = filter.limit ?? 100;
      const needle = q?.trim().toLowerCase();
      const matches = (e: AuditEntry) =>
        (!actor || e.actor === actor) &&
        (!outcome || e.outcome === outcome) &&
        (!needle || [e.action, e.actor, e.target].some((s) => s.toLowerCase().includes(needle)));
      const out: AuditEntry[] = [];
      let beforeSeq = filter.beforeSeq;
      for (let scanned = 0; out.length < limit && scanned < SCAN_MAX; scanned += SCAN_PAGE) {
        const page = await audit.list({ ...stored, beforeSeq, limit: SCAN_PAGE });
        for (const m of await shownPage(page)) {
          if (matches(m)) out.push(m);
          if (out.length >= limit) break;
        }
        if (page.length < SCAN_PAGE) break;
        beforeSeq = page[page.length - 1].seq;
      }
      return out;
    },
  };
}
