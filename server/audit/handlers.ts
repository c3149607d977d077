import { z } from "zod";
import { json } from "../http/errors";
import { invalidField } from "../http/field-errors";
import { intParam, presentString, type HandlerContext, type HandlerMap } from "../http/handler";
import { parsedQuery, parseFailure, queryInt, queryValues, sentBody } from "../http/contract";
import { intQuery, optionalText } from "../http/contract-fields";
import { callerKey, createKept, deepFrozen, EVERYONE } from "../http/kept";
import type { AuditFilter, AuditLog } from "./log";
import type { AuditEntry } from "./model";
import { parseRetentionInput, type RetentionService } from "./retention";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface AuditServices {
  audit: AuditLog;
  auditRetention: RetentionService;
  /** the entries as the caller may see them (server/privacy/audit-view.ts: pseudonymised for the access body) */
  auditView: {
    list(filter: AuditFilter, reader: NonNullable<HandlerContext<object>["user"]>): Promise<AuditEntry[]>;
  };
  /** the graph's version: a reader who sees the identities of some records sees them as the graph's patients are held */
  graph: { version(): number };
}

/**
 * GET /api/admin/audit (entries, newest first; `verify=true` walks the hash chain instead) and
 * GET/POST /api/admin/audit/retention. Access (CONNECTOR_ADMIN or HDAB_AUTHORITY) is enforced by
 * the dispatcher from the route table.
 */

export const AUDIT_LIMIT_DEFAULT = 100;
/** the largest page GET /api/admin/audit answers; page further with `before` (a seq) */
export const AUDIT_LIMIT_MAX = 1000;

/** a day that exists (zod's date pattern: no month 13, no 31 November, 29 February of leap years only), then an optional time */
const ISO = new RegExp(
  `^${z.regexes.date.source.slice(1, -1)}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2})?)?$`,
);
/** an ISO 8601 date or date-time that `Date.parse` reads (blank: absent) */
const isoFilter = (name: string) => {
  const text = `${name} must be an ISO 8601 date or date-time`;
  return z
    .string()
    .regex(new RegExp(`^\\s*$|${ISO.source}`), text)
    .refine((v) => !v.trim() || !Number.isNaN(Date.parse(v)), text)
    .optional()
    .describe("ISO 8601 date or date-time (one that exists: no month 13, no day 32)");
};

/** The audit list's query (its declaration, contract.ts); its filters are the parsed values (`auditFilter`). */
export const auditQuery = z.object({
  limit: intQuery("limit", 1, AUDIT_LIMIT_MAX, AUDIT_LIMIT_DEFAULT),
  verify: optionalText("`true`: the chain's verification report instead of entries"),
  before: z
    .string()
    .regex(/^(\d+)?$/, "before must be an entry's seq (a whole number)")
    .optional(),
  kind: optionalText(),
  actor: optionalText(),
  action: optionalText(),
  outcome: optionalText(),
  q: optionalText("text to look for"),
  since: isoFilter("since"),
  until: isoFilter("until"),
});
type AuditQuery = z.output<typeof auditQuery>;

const isoTime = (raw: string | undefined) => (raw?.trim() ? new Date(raw).toISOString() : undefined);

/** The filters of the audit list from its parsed query. */
export function auditFilter(
  query: AuditQuery,
  limit = queryInt(query.limit, AUDIT_LIMIT_DEFAULT),
): AuditFilter {
  return {
    limit,
    kind: presentString(query.kind),
    actor: presentString(query.actor),
    action: presentString(query.action),
    outcome: presentString(query.outcome),
    q: presentString(query.q),
    since: isoTime(query.since),
    until: isoTime(query.until),
    beforeSeq: query.before ? Number(query.before) : undefined,
  };
}

/** The filters of a page's URL (the audit views), by the same query schema; the page's own limits. */
export function auditFilterFromUrl(url: URL, defaults: { limit?: number; max?: number } = {}): AuditFilter {
  const parsed = auditQuery.omit({ limit: true }).safeParse(queryValues(url.searchParams));
  if (!parsed.success) throw parseFailure(parsed.error.issues);
  const { limit = AUDIT_LIMIT_DEFAULT, max = AUDIT_LIMIT_MAX } = defaults;
  return auditFilter(parsed.data, intParam(url.searchParams, "limit", limit, 1, max));
}

/**
 * What an export of entries records as its target: which of the filters were used, by name, never
 * their values — a GET's query is the caller's text, and a cross-site link would otherwise plant it
 * in an administrator's entries (issue 34).
 */
export function exportTarget(filter: AuditFilter, tab: string | null): string {
  const used: string[] = (
    ["kind", "actor", "action", "outcome", "q", "since", "until", "beforeSeq"] as const
  ).filter((k) => filter[k] !== undefined && filter[k] !== "");
  if (tab) used.unshift("tab");
  return used.length ? `entries filtered by ${used.join(", ")}` : "all entries";
}

/** The chain check as an object: what GET /api/admin/audit?verify=true answers. */
export async function chainReport(audit: AuditLog) {
  const started = performance.now();
  const v = await audit.verify();
  const stats = await audit.kinds();
  return {
    ...v,
    entries: await audit.count(),
    purged: stats.reduce((s, k) => s + k.purged, 0),
    verifiedAt: new Date().toISOString(),
    durationMs: Math.round(performance.now() - started),
    method:
      "Each entry carries an HMAC-SHA256 of its own content and of the hash of the entry before it, made with a key the database " +
      "does not hold; the walk recomputes every hash and follows every link from the genesis hash. Entries removed by a retention " +
      "purge leave a tombstone signed with the key, so the links stay checkable while the content is gone. Signed checkpoints of the " +
      "chain's head, kept outside the database, must each be matched by the chain: a rewritten, cut short or truncated chain is reported.",
  };
}

const actor = (ctx: HandlerContext<AuditServices>) => ctx.user?.username ?? "anonymous";
const retention = (ctx: HandlerContext<AuditServices>): RetentionService => ctx.services.auditRetention;

/**
 * The read answers of these routes, kept (frozen, so the edge encodes each once) per version of the
 * log (server/http/kept: every append and purge, wherever made, moves it), one set per log. Not kept at
 * the route: every read first purges what retention says is due. Retention's answer holds until its
 * next `due` count changes.
 */
const caches = new WeakMap<AuditLog, ReturnType<typeof answerCaches>>();
const answerCaches = () => ({
  entries: createKept<{ value: readonly AuditEntry[]; bytes: number }>({
    max: 64,
    maxSize: 8 << 20,
    sizeOf: ({ bytes }) => bytes,
  }),
  retention: createKept<{ value: unknown; until: number }>({
    max: 64,
    ttlOf: ({ until }) => (Number.isFinite(until) ? until - Date.now() : undefined),
  }),
});
function cachesOf(audit: AuditLog) {
  let c = caches.get(audit);
  if (!c) caches.set(audit, (c = answerCaches()));
  return c;
}

export const auditHandlers: HandlerMap<AuditServices> = {
  "GET /api/admin/audit": async (ctx) => {
    if (ctx.input.query.verify === "true") return json(await chainReport(ctx.services.audit));
    const filter = auditFilter(parsedQuery(ctx, auditQuery));
    await retention(ctx).purgeIfDue();
    const user = ctx.user;
    if (!user) return json([]); // the route table admits signed-in roles only
    // the version first: what the build then reads is at least that new
    const version = await ctx.services.audit.version();
    // Everything the answer depends on: the reader as signed in (the view decides what it may see: the
    // operator every entry as written, the access body pseudonymised, a reader who also holds records
    // those records' identities, as the graph's version holds them), and the filters as parsed (dates
    // normalised, absent ones left out). Readers are not grouped here: audit knows no privacy policy.
    const key = {
      caller: callerKey("user", user),
      versions: [version, ctx.services.graph.version()],
      args: [filter],
    };
    const kept = await cachesOf(ctx.services.audit).entries(key, async () => {
      const value = deepFrozen(await ctx.services.auditView.list(filter, user));
      return { value, bytes: JSON.stringify(value).length };
    });
    return json(kept.value);
  },

  "GET /api/admin/audit/retention": async (ctx) => {
    const kind = presentString(ctx.input.query.kind);
    const version = await ctx.services.audit.version();
    // the same answer for every caller the route admits: keyed by the kind asked for alone
    const key = { caller: EVERYONE, versions: [version], args: [kind] };
    const kept = await cachesOf(ctx.services.audit).retention(key, async () => {
      const { value, until } = await retention(ctx).answer(kind, new Date());
      return { value: deepFrozen(value), until };
    });
    return json(kept.value);
  },

  "POST /api/admin/audit/retention": async (ctx) => {
    const body = sentBody(ctx);
    if (body.action === "purge" || body.purge === true) {
      // a purge sets nothing: a kind or days along with it would be ignored, so they are refused (0082)
      if (body.kind !== undefined || body.days !== undefined)
        throw invalidField("action", "action purge takes no kind or days");
      return json(await retention(ctx).purge(actor(ctx)));
    }
    // the document's action is purge or absent: another is refused, not read as a setting (0082)
    if (body.action !== undefined)
      throw invalidField("action", "action must be purge (or absent to set a kind's days)");
    const { kind, days } = parseRetentionInput(body);
    return json(await retention(ctx).set(kind, days, actor(ctx)));
  },
};
