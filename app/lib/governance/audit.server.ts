import type { AuditEntry } from "../../../server/audit/model";
import type { AuditFilter } from "../../../server/audit/log";
import { RETENTION_RULES, UNKNOWN_KIND_RULE } from "../../../server/audit/retention";
import { csvText } from "../../../server/http/csv";

/**
 * The audit view's tabs (one per retention rule: the kinds kept under the same floor belong
 * together) and its CSV export.
 */

const SHORT: Record<string, string> = {
  "primary-access": "Patient data access",
  "secondary-use": "Secondary use",
  "audit-trail": "Retention and purges",
  governance: "Governance and operations",
};

export const AUDIT_TABS = [
  { id: "all", label: "All", kinds: null as string[] | null },
  ...RETENTION_RULES.map((r) => ({ id: r.id, label: SHORT[r.id] ?? r.label, kinds: [...r.kinds] })),
  { id: UNKNOWN_KIND_RULE.id, label: "Other", kinds: null },
];

export function tabFilter(tab: string | null, allKinds: string[]): Pick<AuditFilter, "kinds"> {
  if (tab === UNKNOWN_KIND_RULE.id) {
    const known = new Set(RETENTION_RULES.flatMap((r) => r.kinds));
    return { kinds: allKinds.filter((k) => !known.has(k)) };
  }
  const t = AUDIT_TABS.find((x) => x.id === tab);
  return t?.kinds ? { kinds: t.kinds } : {};
}

/** the most rows one export holds */
export const CSV_MAX_ROWS = 10_000;

const COLUMNS = [
  "seq",
  "id",
  "timestamp",
  "kind",
  "action",
  "actor",
  "target",
  "outcome",
  "prevHash",
  "hash",
] as const;

export function auditCsv(entries: AuditEntry[]): string {
  return csvText([[...COLUMNS], ...entries.map((e) => COLUMNS.map((c) => e[c]))]);
}
