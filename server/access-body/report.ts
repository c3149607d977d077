import { z } from "zod";
import type { GraphStore } from "../graph";
import { queryValues } from "../http/contract";
import { csvText } from "../http/csv";
import { badRequest } from "../http/errors";
import { escapeHtml as esc } from "../auth/idp/html";
import { berlinDate, daysBetween } from "./calendar";
import { isCivilDate } from "../http/contract-fields";
import { clockView } from "./clock";
import type {
  ApplicationData,
  DataRequestData,
  FindingData,
  InformationRequestData,
  PermitData,
  ResultData,
} from "./model";
import { PERIODS, PURPOSES, purposeLabel } from "./periods";
import { ACCESS_BODY } from "./actors";
import type { RecordStore, StoredRecord } from "./store";

/**
 * The access body's activity report (Art. 59) for a period, generated from the records and the
 * marketplace graph. Decision times are the clock's own numbers: calendar days from the day the
 * complete application was received to the decision, not counting days the clock was paused, set
 * against the statutory period that applied to that application (three months, plus its extension,
 * plus its pauses, rolled to a working day).
 */

const count = z.number().int();
const days = z.number().nullable();
const counts = z.record(z.string(), count);
const decisionTime = z.object({
  applicationId: z.string(),
  organisation: z.string(),
  purpose: z.string(),
  outcome: z.enum(["GRANTED", "REFUSED"]),
  startDate: z.string(),
  decisionDate: z.string(),
  elapsedDays: count,
  pausedDays: count,
  extensionMonths: count,
  deadlineDate: z.string(),
  allowedDays: count.describe("calendar days the statutory period allowed, not counting pauses"),
  metDeadline: z.boolean(),
});
/** GET /api/activity-report's JSON (the CSV and HTML files are made from it) */
export const activityReportSchema = z.object({
  title: z.string(),
  article: z.string(),
  accessBody: z.object({ name: z.string(), did: z.string() }),
  period: z.object({ from: z.string(), to: z.string() }),
  generatedAt: z.string().describe("ISO 8601 time"),
  applications: z.object({
    received: count,
    decided: count,
    granted: count,
    refused: count,
    withdrawn: count,
    pendingAtEndOfPeriod: count,
    overdueNow: z.array(z.string()).describe("the ids of the applications past their deadline today"),
  }),
  decisionTimes: z.object({
    statutoryPeriod: z.string(),
    count,
    averageDays: days,
    medianDays: days,
    maxDays: days,
    averageAllowedDays: days,
    withinStatutoryPeriod: count,
    beyondStatutoryPeriod: count,
    extended: count,
    items: z.array(decisionTime),
  }),
  permits: z.object({
    issued: count,
    revoked: count,
    expired: count,
    activeAtEndOfPeriod: count,
    byPurpose: z.array(z.object({ purpose: z.string(), label: z.string(), count })),
  }),
  refusals: z.array(
    z.object({
      applicationId: z.string(),
      organisation: z.string(),
      purpose: z.string(),
      date: z.string(),
      reasons: z.string(),
    }),
  ),
  dataRequests: z.object({
    received: count,
    approved: count,
    refused: count,
    answered: count,
    answeredWithinPeriod: count,
    statutoryPeriod: z.string(),
  }),
  informationRequests: z.object({
    opened: count,
    answered: count,
    averageDaysToAnswer: days,
    openNow: count,
  }),
  findings: z.object({
    opened: count,
    closed: count,
    openAtEndOfPeriod: count,
    bySeverity: counts,
    byOutcome: counts,
  }),
  results: z.object({
    declared: count,
    released: count,
    rejected: count,
    published: count,
    publicationOverdue: count,
    statutoryPeriod: z.string(),
  }),
  marketplace: z.object({ hdabApprovalsByStatus: counts, contractsByStatus: counts }),
});
export type ActivityReport = z.infer<typeof activityReportSchema>;

/** the mean to one decimal, null of none */
const mean = (xs: number[]) =>
  xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10 : null;

/** `from`/`to` of a page's URL or of the route's parsed query (default: the year up to today) */
export function reportPeriod(where: URL | Readonly<Record<string, unknown>>, now: Date) {
  const query = where instanceof URL ? queryValues(where.searchParams) : where;
  const to = String(query.to || berlinDate(now));
  const from = String(query.from || `${Number(to.slice(0, 4)) - 1}${to.slice(4)}`);
  for (const [k, v] of Object.entries({ from, to }))
    if (!isCivilDate(v)) throw badRequest(`${k} must be a date YYYY-MM-DD`);
  if (from > to) throw badRequest("from must not be after to");
  return { from, to };
}

export async function activityReport(
  store: RecordStore,
  graph: GraphStore,
  period: { from: string; to: string },
  now: Date,
): Promise<ActivityReport> {
  const { from, to } = period;
  const apps = await store.list<ApplicationData>("application");
  const permits = await store.list<PermitData>("permit");
  const requests = await store.list<DataRequestData>("dataRequest");
  const irs = await store.list<InformationRequestData>("informationRequest");
  const findings = await store.list<FindingData>("finding");
  const results = await store.list<ResultData>("result");

  const within = (date: string | null | undefined) => !!date && date >= from && date <= to;
  /** the records decided with one of `outcomes` within the period */
  const decidedAs =
    (...outcomes: string[]) =>
    (r: { data: { decision: { outcome: string; date: string } | null } }) =>
      !!r.data.decision && outcomes.includes(r.data.decision.outcome) && within(r.data.decision.date);
  /** the results checked with `outcome` within the period */
  const checkedAs = (outcome: string) => (r: StoredRecord<ResultData>) =>
    r.data.check?.outcome === outcome && within(r.data.check.at.slice(0, 10));
  const decided = apps.filter(decidedAs("GRANTED", "REFUSED"));
  const refused = decided.filter((a) => a.data.decision!.outcome === "REFUSED");
  const decisionTimes: z.infer<typeof decisionTime>[] = decided
    .filter((a) => a.data.clock.startDate)
    .map((a) => {
      const v = clockView(a.data.clock, now);
      return {
        applicationId: a.id,
        organisation: a.organisation,
        purpose: a.data.purpose,
        outcome: a.data.decision!.outcome as "GRANTED" | "REFUSED",
        startDate: v.startDate!,
        decisionDate: a.data.decision!.date,
        elapsedDays: v.elapsedDays!,
        pausedDays: v.pausedDays,
        extensionMonths: v.extensionMonths,
        deadlineDate: v.deadlineDate!,
        allowedDays: daysBetween(v.startDate!, v.deadlineDate!) - v.pausedDays,
        metDeadline: v.metDeadline!,
      };
    })
    .sort(
      (a, b) =>
        a.decisionDate.localeCompare(b.decisionDate) || a.applicationId.localeCompare(b.applicationId),
    );
  const elapsed = decisionTimes.map((d) => d.elapsedDays).sort((a, b) => a - b);
  const median = elapsed.length
    ? elapsed.length % 2
      ? elapsed[(elapsed.length - 1) / 2]
      : (elapsed[elapsed.length / 2 - 1] + elapsed[elapsed.length / 2]) / 2
    : null;

  const issued = permits.filter((p) => within(p.data.issuedDate));
  const pendingAtEnd = apps.filter(
    (a) => a.data.receivedDate <= to && (!a.data.decision || a.data.decision.date > to),
  );
  const overdueNow = apps.filter(
    (a) =>
      (a.state === "UNDER_ASSESSMENT" || a.state === "INFORMATION_REQUESTED") &&
      clockView(a.data.clock, now).overdue,
  );
  const answeredIrs = irs.filter((i) => i.data.answer && within(i.data.answer.date));
  const openedFindings = findings.filter((f) => within(f.data.openedDate));
  const closedFindings = findings.filter((f) => within(f.data.closure?.date));

  const approvals = await graph.findNodes({ label: "HDABApproval", limit: 10_000 });
  const contracts = await graph.findNodes({ label: "Contract", limit: 10_000 });
  const countBy = <T>(xs: T[], key: (x: T) => string) =>
    xs.reduce<Record<string, number>>((acc, x) => ((acc[key(x)] = (acc[key(x)] ?? 0) + 1), acc), {});

  return {
    title: `Activity report of ${ACCESS_BODY.name}`,
    article: "Regulation (EU) 2025/327 (EHDS) Art. 59",
    accessBody: { name: ACCESS_BODY.name, did: ACCESS_BODY.did },
    period: { from, to },
    generatedAt: now.toISOString(),
    applications: {
      received: apps.filter((a) => within(a.data.receivedDate)).length,
      decided: decided.length,
      granted: decided.length - refused.length,
      refused: refused.length,
      withdrawn: apps.filter(decidedAs("WITHDRAWN")).length,
      pendingAtEndOfPeriod: pendingAtEnd.length,
      overdueNow: overdueNow.map((a) => a.id),
    },
    decisionTimes: {
      statutoryPeriod: `${PERIODS.applicationDecision.amount} months (${PERIODS.applicationDecision.article}), extendable once by up to ${PERIODS.applicationExtension.amount} months; pauses for information requests not counted`,
      count: decisionTimes.length,
      averageDays: mean(elapsed),
      medianDays: median,
      maxDays: elapsed.length ? elapsed[elapsed.length - 1] : null,
      averageAllowedDays: mean(decisionTimes.map((d) => d.allowedDays)),
      withinStatutoryPeriod: decisionTimes.filter((d) => d.metDeadline).length,
      beyondStatutoryPeriod: decisionTimes.filter((d) => !d.metDeadline).length,
      extended: decisionTimes.filter((d) => d.extensionMonths > 0).length,
      items: decisionTimes,
    },
    permits: {
      issued: issued.length,
      revoked: permits.filter((p) => within(p.data.revocation?.date)).length,
      expired: permits.filter(
        (p) => p.state === "EXPIRED" && p.data.validUntil >= from && p.data.validUntil < to,
      ).length,
      activeAtEndOfPeriod: permits.filter(
        (p) =>
          p.data.issuedDate <= to &&
          p.data.validUntil >= to &&
          (!p.data.revocation || p.data.revocation.date > to),
      ).length,
      byPurpose: PURPOSES.map((p) => ({
        purpose: p.code,
        label: `${p.label} (${p.point})`,
        count: issued.filter((x) => x.data.purpose === p.code).length,
      })),
    },
    refusals: refused.map((a) => ({
      applicationId: a.id,
      organisation: a.organisation,
      purpose: purposeLabel(a.data.purpose),
      date: a.data.decision!.date,
      reasons: a.data.decision!.reasons ?? "",
    })),
    dataRequests: {
      received: requests.filter((r) => within(r.data.receivedDate)).length,
      approved: requests.filter(decidedAs("APPROVED")).length,
      refused: requests.filter(decidedAs("REFUSED")).length,
      answered: requests.filter((r) => within(r.data.answer?.date)).length,
      answeredWithinPeriod: requests.filter(
        (r) => r.data.answer && within(r.data.answer.date) && r.data.answer.date <= r.data.dueDate,
      ).length,
      statutoryPeriod: `${PERIODS.dataRequestAnswer.amount} months (${PERIODS.dataRequestAnswer.article}; ${PERIODS.dataRequestAnswer.verification})`,
    },
    informationRequests: {
      opened: irs.filter((i) => within(i.data.openedDate)).length,
      answered: answeredIrs.length,
      averageDaysToAnswer: mean(answeredIrs.map((i) => daysBetween(i.data.openedDate, i.data.answer!.date))),
      openNow: irs.filter((i) => i.state === "OPEN").length,
    },
    findings: {
      opened: openedFindings.length,
      closed: closedFindings.length,
      openAtEndOfPeriod: findings.filter(
        (f) => f.data.openedDate <= to && (!f.data.closure || f.data.closure.date > to),
      ).length,
      bySeverity: countBy(openedFindings, (f) => f.data.severity),
      byOutcome: countBy(closedFindings, (f) => f.data.closure!.outcome),
    },
    results: {
      declared: results.filter((r) => within(r.data.declaredAt.slice(0, 10))).length,
      released: results.filter(checkedAs("RELEASED")).length,
      rejected: results.filter(checkedAs("REJECTED")).length,
      published: results.filter((r) => within(r.data.publication?.date)).length,
      publicationOverdue: results.filter((r) => r.state !== "PUBLISHED" && r.data.publicationDueDate <= to)
        .length,
      statutoryPeriod: `${PERIODS.resultPublication.amount} months (${PERIODS.resultPublication.article})`,
    },
    marketplace: {
      hdabApprovalsByStatus: countBy(approvals, (a) => String(a.properties.status ?? "unknown")),
      contractsByStatus: countBy(contracts, (c) => String(c.properties.status ?? "unknown")),
    },
  };
}

// ---- downloadable documents ----

const DECISION_FIELDS = Object.keys(decisionTime.shape) as (keyof z.infer<typeof decisionTime>)[];
const REFUSAL_FIELDS = ["applicationId", "organisation", "purpose", "date", "reasons"] as const;

/** an object's fields that are no list or object: the metrics of a section */
const scalars = (obj: Record<string, unknown>) =>
  Object.entries(obj).filter(([, v]) => typeof v !== "object" || v === null);

export function reportCsv(r: ActivityReport): string {
  const rows: unknown[][] = [["section", "metric", "value"]];
  const add = (section: string, obj: Record<string, unknown>) => {
    for (const [k, v] of scalars(obj)) rows.push([section, k, v]);
  };
  rows.push(
    ["report", "accessBody", r.accessBody.name],
    ["report", "from", r.period.from],
    ["report", "to", r.period.to],
    ["report", "generatedAt", r.generatedAt],
  );
  add("applications", r.applications);
  rows.push(["applications", "overdueNow", r.applications.overdueNow.join(" ")]);
  add("decisionTimes", r.decisionTimes);
  add("permits", r.permits);
  for (const p of r.permits.byPurpose) rows.push(["permitsByPurpose", p.label, p.count]);
  add("dataRequests", r.dataRequests);
  add("informationRequests", r.informationRequests);
  add("findings", r.findings);
  for (const [k, v] of Object.entries(r.findings.bySeverity)) rows.push(["findingsBySeverity", k, v]);
  for (const [k, v] of Object.entries(r.findings.byOutcome)) rows.push(["findingsByOutcome", k, v]);
  add("results", r.results);
  rows.push([]);
  rows.push(["decisionTime", ...DECISION_FIELDS]);
  for (const d of r.decisionTimes.items) rows.push(["decisionTime", ...DECISION_FIELDS.map((f) => d[f])]);
  rows.push([]);
  rows.push(["refusal", ...REFUSAL_FIELDS]);
  for (const x of r.refusals) rows.push(["refusal", ...REFUSAL_FIELDS.map((f) => x[f])]);
  return csvText(rows);
}

function barsSvg(
  rows: { label: string; value: number }[],
  opts: { unit?: string; colour?: string } = {},
): string {
  const width = 560;
  const labelWidth = 260;
  const barMax = width - labelWidth - 60;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const h = 22;
  const body = rows
    .map((r, i) => {
      const w = Math.round((r.value / max) * barMax);
      const y = i * h;
      return `<text x="0" y="${y + 15}" font-size="12">${esc(r.label)}</text><rect x="${labelWidth}" y="${y + 4}" width="${w}" height="14" fill="${opts.colour ?? "#1f5fbf"}"/><text x="${labelWidth + w + 6}" y="${y + 15}" font-size="12">${esc(r.value)}${esc(opts.unit ?? "")}</text>`;
    })
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${rows.length * h + 4}" role="img" font-family="system-ui, sans-serif">${body}</svg>`;
}

export function reportHtml(r: ActivityReport): string {
  const table = (head: string[], rows: unknown[][]) =>
    `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
  const kv = (obj: Record<string, unknown>) => table(["metric", "value"], scalars(obj));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(r.title)} ${esc(r.period.from)} – ${esc(r.period.to)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1b2433}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border-bottom:1px solid #dde3ee;padding:.3rem .6rem;text-align:left;font-size:.9rem}th{color:#5d6b82}.late{color:#b42318;font-weight:600}</style>
</head><body>
<h1>${esc(r.title)}</h1>
<p>${esc(r.article)} · period ${esc(r.period.from)} to ${esc(r.period.to)} · generated ${esc(r.generatedAt)}</p>
<h2>Applications</h2>${kv(r.applications)}
<h2>Decision times against the statutory period</h2>
<p>${esc(r.decisionTimes.statutoryPeriod)}</p>${kv(r.decisionTimes)}
${barsSvg(
  r.decisionTimes.items.map((d) => ({
    label: `${d.applicationId} (${d.allowedDays} allowed)`,
    value: d.elapsedDays,
  })),
  { unit: " d" },
)}
${table(
  [
    "application",
    "organisation",
    "outcome",
    "start",
    "decision",
    "days",
    "paused",
    "extension (months)",
    "deadline",
    "allowed days",
    "met",
  ],
  // the CSV's columns but the purpose
  r.decisionTimes.items.map((d) =>
    DECISION_FIELDS.filter((f) => f !== "purpose").map((f) =>
      f === "metDeadline" ? (d[f] ? "yes" : "NO") : d[f],
    ),
  ),
)}
<h2>Permits</h2>${kv(r.permits)}
${barsSvg(
  r.permits.byPurpose.map((p) => ({ label: p.label, value: p.count })),
  { colour: "#137333" },
)}
<h2>Refusals</h2>${table(
    ["application", "organisation", "purpose", "date", "reasons"],
    r.refusals.map((x) => REFUSAL_FIELDS.map((f) => x[f])),
  )}
<h2>Data requests (Art. 69)</h2>${kv(r.dataRequests)}
<h2>Information requests</h2>${kv(r.informationRequests)}
<h2>Findings</h2>${kv(r.findings)}
${table(["severity", "count"], Object.entries(r.findings.bySeverity))}
${table(["outcome", "count"], Object.entries(r.findings.byOutcome))}
<h2>Results (Art. 61(4))</h2>${kv(r.results)}
<h2>Marketplace</h2>
${table(["HDAB approval status", "count"], Object.entries(r.marketplace.hdabApprovalsByStatus))}
${table(["contract status", "count"], Object.entries(r.marketplace.contractsByStatus))}
</body></html>
`;
}
