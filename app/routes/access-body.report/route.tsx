import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { isApiError } from "../../lib/api-errors.server";
import { AccessBodyHead, Bars, civil } from "../../components/access-body/ui";
import { stateLabel, words } from "../../components/ui/labels";
import { requireRole } from "../../session.server";
import { HDAB_ROLES } from "../../lib/access.server";
import { DataTable } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Activity report · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, HDAB_ROLES);
  const ab = context.services.accessBody;
  const url = new URL(request.url);
  let period;
  let error: string | null = null;
  try {
    period = ab.reportPeriod(url);
  } catch (e) {
    if (!isApiError(e)) throw e;
    error = e.message;
    period = ab.reportPeriod(new URL(url.pathname, url));
  }
  return { report: await ab.activityReport(period), error };
}

const countRows = (counts: Record<string, number>, label: (key: string) => string) =>
  Object.entries(counts).map(([k, v]) => ({ label: label(k), value: v }));

export default function ActivityReport() {
  const { report: r, error } = useLoaderData<typeof loader>();
  const q = `from=${r.period.from}&to=${r.period.to}`;
  const cards: [string, number | string | null][] = [
    ["Applications received", r.applications.received],
    ["Decided", r.applications.decided],
    ["Granted", r.applications.granted],
    ["Refused", r.applications.refused],
    ["Median decision (days)", r.decisionTimes.medianDays],
    ["Within the statutory period", `${r.decisionTimes.withinStatutoryPeriod} of ${r.decisionTimes.count}`],
    ["Permits issued", r.permits.issued],
    ["Permits revoked", r.permits.revoked],
    ["Findings opened", r.findings.opened],
    ["Data requests answered", r.dataRequests.answered],
  ];
  return (
    <section>
      <AccessBodyHead title="Activity report">
        {r.article} · {r.accessBody.name} · {civil(r.period.from)} to {civil(r.period.to)}
      </AccessBodyHead>
      {error ? <p className="notice error">{error}</p> : null}
      <Form method="get" className="toolbar">
        <label>
          From
          <input type="date" name="from" defaultValue={r.period.from} />
        </label>
        <label>
          To
          <input type="date" name="to" defaultValue={r.period.to} />
        </label>
        <button className="button ghost">Show</button>
        {[
          ["csv", "CSV"],
          ["html", "report (HTML)"],
        ].map(([format, what]) => (
          <a
            key={format}
            className="button ghost"
            href={`/api/activity-report?${q}&format=${format}`}
            download
            data-testid={`download-${format}`}
          >
            {`Download ${what}`}
          </a>
        ))}
        <a className="button ghost" href={`/api/activity-report?${q}`}>
          JSON
        </a>
      </Form>
      <div className="stat-grid ab-stats">
        {cards.map(([label, value]) => (
          <div className="card stat" key={label}>
            <span className="stat-label">{label}</span>
            <span className="stat-value">{value ?? "—"}</span>
          </div>
        ))}
      </div>
      <div className="two-col">
        <div className="card ab-card">
          <h2>Decision times against the statutory period</h2>
          <p className="muted ab-small">
            {r.decisionTimes.statutoryPeriod}. Bar: days taken (net of pauses); red line: days allowed.
          </p>
          <Bars
            width={560}
            labelWidth={240}
            label="Decision times"
            unit=" d"
            empty="No application was decided in this period, so there are no decision times to compare."
            rows={r.decisionTimes.items.map((d) => ({
              label: `${d.applicationId} · ${d.organisation}`,
              value: d.elapsedDays,
              marker: d.allowedDays,
            }))}
          />
          {r.decisionTimes.items.length ? (
            <div className="table-wrap">
              <DataTable
                className="data ab-small"
                data-testid="decision-times"
                columns={[
                  "Application",
                  "Start",
                  "Decision",
                  "Days",
                  "Paused",
                  <abbr title="Extension in months">Ext.</abbr>,
                  "Deadline",
                  "Met",
                ]}
              >
                {r.decisionTimes.items.map((d) => (
                  <tr key={d.applicationId} className={d.metDeadline ? undefined : "ab-row-overdue"}>
                    <td>{d.applicationId}</td>
                    <td className="nowrap">{civil(d.startDate)}</td>
                    <td className="nowrap">{civil(d.decisionDate)}</td>
                    <td>{d.elapsedDays}</td>
                    <td>{d.pausedDays}</td>
                    <td>{d.extensionMonths || ""}</td>
                    <td className="nowrap">{civil(d.deadlineDate)}</td>
                    <td>{d.metDeadline ? "yes" : "no"}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
          ) : null}
        </div>
        <div>
          <div className="card ab-card">
            <h2>Permits by purpose (Art. 53(1))</h2>
            <Bars
              width={440}
              labelWidth={230}
              label="Permits by purpose"
              empty="No permit was issued in this period."
              colour="#137333"
              rows={r.permits.byPurpose.map((p) => ({ label: p.label, value: p.count }))}
            />
          </div>
          <div className="card ab-card">
            <h2>Refusals</h2>
            {r.refusals.length ? (
              <ul>
                {r.refusals.map((x) => (
                  <li key={x.applicationId}>
                    {x.applicationId} · {x.organisation} · {civil(x.date)}: {x.reasons}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">None in this period.</p>
            )}
          </div>
          <div className="card ab-card">
            <h2>Findings</h2>
            <Bars
              width={440}
              labelWidth={160}
              label="Findings by severity"
              colour="#a15c00"
              rows={countRows(r.findings.bySeverity, (k) => `${words(k)} severity`)}
            />
            <p className="ab-small">
              Opened {r.findings.opened}, closed {r.findings.closed}, open at the end of the period{" "}
              {r.findings.openAtEndOfPeriod}.
            </p>
          </div>
          <div className="card ab-card">
            <h2>Marketplace</h2>
            <Bars
              width={440}
              labelWidth={190}
              label="HDAB approvals by status"
              colour="#7c3aed"
              rows={countRows(r.marketplace.hdabApprovalsByStatus, stateLabel)}
            />
            <Bars
              width={440}
              labelWidth={190}
              label="Contracts by status"
              colour="#0891b2"
              rows={countRows(r.marketplace.contractsByStatus, stateLabel)}
            />
          </div>
        </div>
      </div>
    </section>
  );
}
