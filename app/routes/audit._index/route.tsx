import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { auditFilterFromUrl, chainReport } from "../../lib/governance/governance.server";
import { AUDIT_TABS, CSV_MAX_ROWS, tabFilter } from "../../lib/governance/audit.server";
import { GovNav, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { formatDateTime, timesWithZone } from "../../components/ui/format";
import { AUDIT_ACTIONS, auditActionLabel, auditKindLabel } from "../../components/ui/audit-labels";
import { actorLabel } from "../../components/ui/labels";
import { requireRole } from "../../session.server";
import { AUDIT_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable, num } from "../../components/route-kit/DataTable";
import { Filter } from "../../components/route-kit/Filter";
import { optionList } from "../../components/route-kit/options";

export const meta: MetaFunction = () => [{ title: "Audit trail · Health Dataspace Hub" }];

const PAGE = 100;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, AUDIT_ROLES);
  const url = new URL(request.url);
  const audit = context.services.audit;
  const kinds = (await audit.kinds()).map((k) => k.kind);
  let error: string | null = null;
  let filter;
  try {
    filter = auditFilterFromUrl(url, { limit: PAGE });
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    filter = { limit: PAGE };
  }
  const tab = url.searchParams.get("tab") ?? "all";
  const entries = await context.services.auditView.list({ ...filter, ...tabFilter(tab, kinds) }, user);
  return {
    admin: user.roles.includes("CONNECTOR_ADMIN"),
    entries,
    error,
    tab,
    tabs: AUDIT_TABS.map((t) => ({ id: t.id, label: t.label })),
    kinds,
    total: await audit.count(),
    csvMax: CSV_MAX_ROWS,
    chain: url.searchParams.get("verify") === "1" ? await chainReport(audit) : null,
    nextBefore: entries.length === (filter.limit ?? PAGE) ? (entries[entries.length - 1]?.seq ?? null) : null,
  };
}

/** the action filter's choices in words, by label; an action in the address that has none is kept as its code */
const KNOWN_ACTIONS = Object.entries(AUDIT_ACTIONS).sort(([, a], [, b]) => a.localeCompare(b));
function actionChoices(current: string | null): [string, string][] {
  return current && !Object.hasOwn(AUDIT_ACTIONS, current)
    ? [[current, current], ...KNOWN_ACTIONS]
    : KNOWN_ACTIONS;
}

const FILTERS = ["kind", "actor", "action", "outcome", "q", "since", "until"] as const;

export default function Audit() {
  const d = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const withParams = (changes: Record<string, string | null>) => {
    const p = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null) p.delete(k);
      else p.set(k, v);
    }
    const s = p.toString();
    return s ? `?${s}` : "";
  };
  const exportQuery = withParams({ verify: null, before: null, limit: null });
  return (
    <section className="gov">
      <PageHead
        title="Audit trail"
        lead={`Append-only and hash-chained: every entry carries the hash of the one before. ${d.total} entries.`}
      >
        <div className="actions">
          <a href={`/audit.csv${exportQuery}`} className="button ghost" download>
            Export CSV
          </a>
          <Link to={withParams({ verify: "1" })} className="button">
            Verify the chain
          </Link>
        </div>
      </PageHead>
      {d.admin ? (
        <GovNav />
      ) : (
        <GovNav
          items={[
            { to: "/audit", label: "Entries", end: true },
            { to: "/audit/retention", label: "Retention" },
            { to: "/policies", label: "Policies" },
          ]}
          label="Governance"
        />
      )}

      {d.chain ? (
        <div className={`notice ${d.chain.ok ? "ok" : "error"}`} role="status" data-testid="chain">
          {d.chain.ok ? (
            <>
              Chain intact: {d.chain.checked} entries recomputed and every link followed
              {d.chain.purged ? ` (${d.chain.purged} purged entries bridged by their tombstones)` : ""}, in{" "}
              {d.chain.durationMs} ms.
            </>
          ) : (
            <>
              Chain broken at entry {d.chain.firstBroken.seq} ({d.chain.firstBroken.id}):{" "}
              {d.chain.firstBroken.reason}. The {d.chain.checked} entries before it are intact.
            </>
          )}
        </div>
      ) : null}
      {d.error ? <p className="notice error">{d.error}</p> : null}

      <nav className="tabs" aria-label="Entry kinds">
        {d.tabs.map((t) => (
          <Link
            key={t.id}
            to={withParams({ tab: t.id === "all" ? null : t.id, before: null, verify: null })}
            className={d.tab === t.id ? "active" : undefined}
            aria-current={d.tab === t.id ? "page" : undefined}
          >
            {t.label}
          </Link>
        ))}
      </nav>

      <Form method="get" className="filters" data-testid="audit-filters">
        {d.tab !== "all" ? <input type="hidden" name="tab" value={d.tab} /> : null}
        <Filter label="Kind">
          <select name="kind" defaultValue={params.get("kind") ?? ""}>
            <option value="">any</option>
            {optionList(d.kinds, (k) => [k, auditKindLabel(k)])}
          </select>
        </Filter>
        <Filter label="Actor">
          <input name="actor" defaultValue={params.get("actor") ?? ""} size={10} />
        </Filter>
        <Filter label="Action">
          <select name="action" defaultValue={params.get("action") ?? ""}>
            <option value="">Any action</option>
            {optionList(actionChoices(params.get("action")), ([code, label]) => [code, label])}
          </select>
        </Filter>
        <Filter label="Outcome">
          <input name="outcome" defaultValue={params.get("outcome") ?? ""} size={10} />
        </Filter>
        <Filter label="Text" grow>
          <input
            name="q"
            type="search"
            defaultValue={params.get("q") ?? ""}
            placeholder="in action, actor or target"
          />
        </Filter>
        <Filter label="From">
          <input name="since" type="date" defaultValue={params.get("since") ?? ""} />
        </Filter>
        <Filter label="Before">
          <input name="until" type="date" defaultValue={params.get("until") ?? ""} />
        </Filter>
        <div className="filter-actions">
          <button type="submit" className="button">
            Filter
          </button>
          {FILTERS.some((f) => params.get(f)) ? (
            <AppLink to={d.tab === "all" ? "/audit" : `/audit?tab=${d.tab}`} className="button ghost">
              Clear
            </AppLink>
          ) : null}
        </div>
      </Form>

      <div className="table-wrap card flush">
        <DataTable
          className="data compact"
          data-testid="audit-entries"
          columns={[num("#"), "Time", "Kind", "Action", "Actor", "Target", "Outcome", "Hash"]}
        >
          {d.entries.map((e) => (
            <tr key={e.id} data-testid={`entry-${e.seq}`}>
              <td className="num">{e.seq}</td>
              <td className="nowrap">{formatDateTime(e.timestamp)}</td>
              <td>
                <Badge>{auditKindLabel(e.kind)}</Badge>
              </td>
              <td data-testid="audit-action">
                {auditActionLabel(e.action)}
                <div className="muted small">
                  <code>{e.action}</code>
                </div>
              </td>
              <td title={e.actor}>{actorLabel(e.actor)}</td>
              <td className="wrap">
                <code className="wrap">{e.target}</code>
              </td>
              <td className="wrap">
                {e.outcome === "success" ? (
                  <span className="muted">success</span>
                ) : /fail|refused/i.test(e.outcome) ? (
                  <Badge tone="danger">{timesWithZone(e.outcome)}</Badge>
                ) : (
                  timesWithZone(e.outcome)
                )}
              </td>
              <td>
                {e.hash ? (
                  <code title={`this entry ${e.hash}\nprevious ${e.prevHash}`}>{e.hash.slice(0, 10)}…</code>
                ) : (
                  <span className="muted" title="withheld: a hash would let one test patient numbers">
                    withheld
                  </span>
                )}
              </td>
            </tr>
          ))}
          {d.entries.length === 0 ? (
            <tr>
              <td colSpan={8} className="empty">
                No entries match.
              </td>
            </tr>
          ) : null}
        </DataTable>
      </div>
      <div className="pager">
        <p className="small muted">
          {d.entries.length} entries shown, newest first. The API answers up to 1000 per page (default 100);
          CSV exports hold up to {d.csvMax.toLocaleString("en-GB")}.
        </p>
        {d.nextBefore ? (
          <Link
            to={withParams({ before: String(d.nextBefore), verify: null })}
            className="button ghost small"
          >
            Older entries
          </Link>
        ) : null}
      </div>
    </section>
  );
}
