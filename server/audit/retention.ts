import { z } from "zod";
import type { Relational } from "../storage/relational";
import { AUDIT_TOPIC, KIND_PATTERN, type AuditLog } from "./log";
import { invalidField, invalidFields, missingFields } from "../http/field-errors";

/**
 * Retention of the audit log, per entry kind, with a floor that cannot be undercut.
 *
 * The floors and where they come from (checked November 2026 with the project's search tool over
 * stored public copies; no live access to EUR-Lex):
 *
 * - Access to personal electronic health data (kinds patient, consent, patient-app, eudi): three
 *   years. Regulation (EU) 2025/327 (EHDS) Art. 9(2): the information on who accessed a person's
 *   electronic health data "shall be available for at least three years from each date of access".
 *   Read in a reproduction of the article's text (ringholm.com/ehds/article-9.htm), not in the
 *   Official Journal itself: "secondary".
 * - Secondary use (kinds access-body, dataspace, insight, federated, graph, nlq): one year. EHDS
 *   Art. 73(1): the secure processing environment keeps identifiable logs of access "for a period
 *   of not shorter than one year". Read as a summary of the final text (ehds-jurist.nl, "The EHDS
 *   and the secure processing environment"); the Commission's proposal (Art. 50(1)(e)) named no
 *   period: "secondary".
 * - The audit trail's own entries (kind audit: retention changes and purges): three years, the
 *   longest floor above, so the record of a purge outlives anything a purge may have removed.
 *   Our rule, not statute.
 * - The hub's governance entries (catalogue, session, policy, credential, operator, directory,
 *   trust-center, and access: refused requests, server/audit/access-log.ts): no Union statute found that sets a period; the hub keeps them at least one year
 *   (GDPR Art. 5(2) accountability names no period). Our rule, marked `statutory: false`.
 * - A kind no rule names is kept at least three years: the longest floor, so a new kind is never
 *   purged early by accident.
 *
 * Periods are whole days. A floor in years is counted generously (365 days a year plus one for a
 * leap day) so that no calendar span of that many years is ever cut short.
 */

export const RETENTION_MAX_DAYS = 3653; // ten years: the longest period this hub will hold an entry for
const years = (n: number) => n * 365 + Math.ceil(n / 4);

const retentionRule = z.object({
  id: z.string(),
  label: z.string(),
  kinds: z.array(z.string()).readonly(),
  minimumDays: z.number().int(),
  basis: z.string().describe("the provision the floor comes from"),
  statutory: z.boolean(),
  verification: z.enum(["secondary", "own-rule"]),
});
export type RetentionRule = z.infer<typeof retentionRule>;

export const RETENTION_RULES: readonly RetentionRule[] = [
  {
    id: "primary-access",
    label: "Access to personal electronic health data",
    kinds: ["patient", "consent", "patient-app", "eudi"],
    minimumDays: years(3),
    basis:
      "Regulation (EU) 2025/327 (EHDS) Art. 9(2): information on access available for at least three years from each date of access",
    statutory: true,
    verification: "secondary",
  },
  {
    id: "secondary-use",
    label: "Secondary use and the secure processing environment",
    kinds: ["access-body", "dataspace", "insight", "federated", "graph", "nlq"],
    minimumDays: years(1),
    basis:
      "Regulation (EU) 2025/327 (EHDS) Art. 73(1): identifiable logs of access to the secure processing environment kept not shorter than one year",
    statutory: true,
    verification: "secondary",
  },
  {
    id: "audit-trail",
    label: "The audit trail's own records (retention changes, purges)",
    kinds: ["audit"],
    minimumDays: years(3),
    basis:
      "Hub rule: as long as the longest statutory floor (EHDS Art. 9(2)), so a purge record outlives what it removed",
    statutory: false,
    verification: "own-rule",
  },
  {
    id: "governance",
    label:
      "Hub governance: catalogue, sessions, policies, credentials, operator, directory, trust center, refused requests",
    kinds: [
      "catalogue",
      "session",
      "policy",
      "credential",
      "operator",
      "directory",
      "trust-center",
      "access",
    ],
    minimumDays: years(1),
    basis:
      "Hub rule (no statutory period found): GDPR Art. 5(2) accountability; one year, as for the secure processing environment",
    statutory: false,
    verification: "own-rule",
  },
];

export const UNKNOWN_KIND_RULE: RetentionRule = {
  id: "unclassified",
  label: "Kinds no rule names",
  kinds: [],
  minimumDays: years(3),
  basis: "Hub rule: a kind no rule names is kept as long as the longest statutory floor (EHDS Art. 9(2))",
  statutory: false,
  verification: "own-rule",
};

export function ruleFor(kind: string): RetentionRule {
  return RETENTION_RULES.find((r) => r.kinds.includes(kind)) ?? UNKNOWN_KIND_RULE;
}

/** one kind's retention as GET/POST /api/admin/audit/retention answer it */
export const retentionRow = z.object({
  kind: z.string(),
  days: z.number().int().describe("the period in force, in days"),
  minimumDays: z.number().int(),
  maximumDays: z.number().int(),
  rule: z.string(),
  ruleLabel: z.string(),
  basis: z.string(),
  statutory: z.boolean(),
  verification: retentionRule.shape.verification,
  source: z
    .enum(["minimum", "set"])
    .describe("minimum: the floor applies (no period set); set: chosen by someone"),
  setBy: z.string().nullable(),
  setAt: z.string().nullable(),
  entries: z.number().int(),
  purged: z.number().int(),
  oldest: z.string().nullable(),
  due: z.number().int().describe("entries older than the period, which the next purge removes"),
});
export type RetentionRow = z.infer<typeof retentionRow>;

/** every kind's retention, its rules and the last purge (GET without ?kind=) */
export const retentionOverview = z.object({
  kinds: z.array(retentionRow),
  rules: z.array(retentionRule).readonly(),
  maximumDays: z.number().int(),
  lastPurge: z.string().nullable(),
});

export const purgeReport = z.object({
  at: z.string(),
  purged: z.record(z.string(), z.number().int()).describe("entries removed per kind"),
  total: z.number().int(),
});

export function parseRetentionInput(body: Record<string, unknown>): { kind: string; days: number } {
  const kind = typeof body.kind === "string" ? body.kind.trim() : "";
  const hasDays = !(body.days === undefined || body.days === null || body.days === "");
  if (!kind || !hasDays) throw missingFields({ kind, days: hasDays }, "kind and days are required");
  if (!KIND_PATTERN.test(kind))
    throw invalidField("kind", "kind must be a lower-case entry kind such as consent or access-body");
  const days = typeof body.days === "string" && /^\d+$/.test(body.days) ? Number(body.days) : body.days;
  if (typeof days !== "number" || !Number.isInteger(days) || days < 1)
    throw invalidField("days", "days must be a whole number of days (at least 1)");
  return { kind, days };
}

export async function createRetentionService(rel: Relational, audit: AuditLog) {
  await rel.migrate("audit-retention-1", async (m) => {
    await m.schema
      .createTable("audit_retention")
      .addColumn("kind", "text", (c) => c.primaryKey())
      .addColumn("days", "integer", (c) => c.notNull())
      .addColumn("set_by", "text", (c) => c.notNull())
      .addColumn("set_at", "text", (c) => c.notNull())
      .execute();
    await m.schema
      .createTable("audit_retention_state")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .execute();
  });
  const settings = async () =>
    (await rel.db.selectFrom("audit_retention").select(["kind", "days", "set_by", "set_at"]).execute()) as {
      kind: string;
      days: number;
      set_by: string;
      set_at: string;
    }[];
  const getState = async (key: string) =>
    (
      (await rel.db
        .selectFrom("audit_retention_state")
        .select("value")
        .where("key", "=", key)
        .executeTakeFirst()) as { value: string } | undefined
    )?.value;
  // the state is part of what the log's version stands for (the retention answer shows the last purge)
  const putState = (key: string, value: string) =>
    rel.tx(async (tx) => {
      await tx
        .insertInto("audit_retention_state")
        .values({ key, value })
        .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
        .execute();
      await rel.changes.bump(tx, AUDIT_TOPIC);
    });
  // the last purge as read at a version of the log: purgeIfDue, on every read of the entries, reads
  // the store only when the log has changed since
  let lastSeen: { version: number; last: string | undefined } | undefined;

  const cutoff = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();

  async function rows(
    now: Date,
    extra: readonly string[] = [],
  ): Promise<{ rows: RetentionRow[]; until: number }> {
    const set = new Map((await settings()).map((r) => [r.kind, r]));
    const stats = new Map((await audit.kinds()).map((k) => [k.kind, k]));
    const kinds = new Set<string>([
      ...RETENTION_RULES.flatMap((r) => r.kinds),
      ...stats.keys(),
      ...set.keys(),
      ...extra,
    ]);
    let until = Infinity;
    const out: RetentionRow[] = [];
    for (const kind of [...kinds].sort()) {
      const rule = ruleFor(kind);
      const s = set.get(kind);
      // a stored period below today's floor (the rules were raised) is read as the floor
      const days = Math.max(s?.days ?? rule.minimumDays, rule.minimumDays);
      const st = stats.get(kind);
      let due = 0;
      if (st?.entries) {
        const cut = cutoff(now, days);
        due = await audit.countBefore(kind, cut);
        // the count holds until the oldest entry not yet due is `days` old (it counts once older)
        const next = await audit.oldestFrom(kind, cut);
        if (next) until = Math.min(until, Date.parse(next) + days * 86_400_000);
      }
      out.push({
        kind,
        days,
        minimumDays: rule.minimumDays,
        maximumDays: RETENTION_MAX_DAYS,
        rule: rule.id,
        ruleLabel: rule.label,
        basis: rule.basis,
        statutory: rule.statutory,
        verification: rule.verification,
        source: s ? "set" : "minimum",
        setBy: s?.set_by ?? null,
        setAt: s?.set_at ?? null,
        entries: st?.entries ?? 0,
        purged: st?.purged ?? 0,
        oldest: st?.oldest ?? null,
        due,
      });
    }
    return { rows: out, until };
  }

  async function purge(actor: string, now: Date): Promise<z.infer<typeof purgeReport>> {
    const purged: Record<string, number> = {};
    let total = 0;
    for (const r of (await rows(now)).rows) {
      if (r.entries === 0) continue;
      let n = 0;
      // bounded batches, so one purge never holds the database for long
      for (let batch; (batch = await audit.purge(r.kind, cutoff(now, r.days))) > 0;) n += batch;
      if (n > 0) {
        purged[r.kind] = n;
        total += n;
      }
    }
    const at = now.toISOString();
    await putState("last-purge", at);
    if (total > 0) {
      await audit.append({
        action: "audit.purge",
        actor,
        target: Object.entries(purged)
          .map(([k, n]) => `${k}: ${n}`)
          .join(", "),
        outcome: `${total} entries past their retention period removed (tombstones kept)`,
        kind: "audit",
      });
    }
    return { at, purged, total };
  }

  const lastPurge = async () => (await getState("last-purge")) ?? null;

  return {
    list: async (now = new Date()) => (await rows(now)).rows,
    async set(kind: string, days: number, actor: string, now = new Date()) {
      const rule = ruleFor(kind);
      const refuse = (message: string, bound: Record<string, unknown>) =>
        invalidFields(message, [{ path: "days", message }], 400, { kind, ...bound });
      if (days < rule.minimumDays)
        throw refuse(
          `Retention for ${kind} cannot be shorter than ${rule.minimumDays} days (${rule.basis})`,
          { minimumDays: rule.minimumDays, basis: rule.basis },
        );
      if (days > RETENTION_MAX_DAYS)
        throw refuse(
          `Retention for ${kind} cannot be longer than ${RETENTION_MAX_DAYS} days (ten years, the hub's maximum)`,
          { maximumDays: RETENTION_MAX_DAYS },
        );
      const at = now.toISOString();
      await rel.tx(async (tx) => {
        await tx
          .insertInto("audit_retention")
          .values({ kind, days, set_by: actor, set_at: at })
          .onConflict((oc) => oc.column("kind").doUpdateSet({ days, set_by: actor, set_at: at }))
          .execute();
        await audit.append(
          { action: "audit.retention.set", actor, target: kind, outcome: `${days} days`, kind: "audit" },
          { at: now, tx },
        );
      });
      return (await rows(now)).rows.find((r) => r.kind === kind)!;
    },
    /** removes every entry older than its kind's period (tombstones keep the chain verifiable) */
    purge: (actor: string, now = new Date()) => purge(actor, now),
    /** purges when the last purge is more than a day old; cheap otherwise */
    async purgeIfDue(now = new Date()) {
      const version = await audit.version();
      const last = lastSeen?.version === version ? lastSeen.last : await getState("last-purge");
      lastSeen = { version, last };
      if (last && now.getTime() - Date.parse(last) < 86_400_000) return null;
      return purge("system", now);
    },
    lastPurge,
    /**
     * What GET /api/admin/audit/retention answers (`kind`: that kind's row, else every kind with the
     * rules and the last purge), and until when it holds with no write in between: each kind's `due`
     * count changes when its oldest entry not yet due passes its period (ms since the epoch).
     */
    async answer(kind: string | undefined, now = new Date()) {
      if (kind) {
        const { rows: all, until } = await rows(now, [kind]);
        return { value: all.find((r) => r.kind === kind)!, until };
      }
      const { rows: kinds, until } = await rows(now);
      return {
        value: {
          kinds,
          rules: RETENTION_RULES,
          maximumDays: RETENTION_MAX_DAYS,
          lastPurge: await lastPurge(),
        },
        until,
      };
    },
  };
}

export type RetentionService = Awaited<ReturnType<typeof createRetentionService>>;
