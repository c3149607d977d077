import type { AccessLog } from "../audit/access-log";
import type { AuditLog } from "../audit/log";
import type { AuditInput } from "../audit/model";
import type { SessionUser } from "../auth/user";
import type { Config } from "../config";
import type { GraphStore } from "../graph";
import type { Relational, Sql } from "../storage/relational";
import type { AccountRow } from "./store";

/** The companion app's callers (Principal), its dependencies, limits and small helpers. */

export const CHALLENGE_TTL_MS = 2 * 60 * 1000;
export const PAIRING_TTL_MS = 5 * 60 * 1000;
export const MAX_PENDING_PAIRINGS = 5;
export const MAX_ACTIVE_DEVICES = 10;
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // 32 symbols, no 0/O or 1/I
export const RECORD_LIMIT = 5000;

export type Principal =
  | { kind: "patient"; patientId: string; actor: string; user: SessionUser }
  | { kind: "device"; patientId: string; accountId: string; actor: string; deviceName: string | null }
  | { kind: "unpaired-device"; patientId: null; accountId: string; actor: string };

export interface PatientAppDeps {
  rel: Relational;
  audit: AuditLog;
  graph: GraphStore;
  config: Config;
  /** where record reads are audited, batched and coalesced (server/audit/access-log.ts); absent: one append per read */
  accessLog?: Pick<AccessLog, "read" | "flush">;
}

export { random } from "../eudi";

/** a companion app change's audit entry, in the change's transaction */
export const auditIn = (audit: AuditLog, tx: Sql, entry: Omit<AuditInput, "kind">) =>
  audit.append({ ...entry, kind: "patient-app" }, { tx });

export function randomCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => CODE_ALPHABET[b & 31]).join("");
}
/** "abcd-efgh" / "ABCD EFGH" → "ABCDEFGH" */
export function normaliseCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}
export const showCode = (c: string) => `${c.slice(0, 4)}-${c.slice(4)}`;
export const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export function deviceView(a: AccountRow) {
  return {
    deviceId: a.id,
    name: a.device_name ?? "Companion app",
    platform: a.platform,
    status: a.status,
    pairedAt: iso(a.paired_at),
    lastSeenAt: iso(a.last_seen_at),
    revokedAt: iso(a.revoked_at),
    createdAt: iso(a.created_at),
  };
}
