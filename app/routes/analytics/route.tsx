import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useMemo } from "react";
import { BarChart, ColumnChart, Suppressed } from "../../components/insight/charts";
import { ScopePanel } from "../../components/insight/ScopePanel";
import { withLayerNames } from "../../components/ui/labels";
import { formatNumber } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ANALYTICS_ROLES } from "../../lib/access.server";
import { DataTable, num } from "../../components/route-kit/DataTable";
import { analyticsViewText, type AnalyticsView } from "./view.server";

export const meta: MetaFunction = () => [{ title: "Analytics · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, ANALYTICS_ROLES);
  // the view leaves out when the answer was made, so the same figures make the same page (render cache)
  return { view: await analyticsViewText(await context.services.analytics.dashboard(user, { top: 10 })) };
}

export default function Analytics() {
  const { view } = useLoaderData<typeof loader>();
  const d = useMemo(() => JSON.parse(view) as AnalyticsView, [view]);
  const k = d.scope.k;
  return (
    <section className="ins-page" data-testid="analytics">
      <div className="page-head">
        <div>
          <h1>OMOP analytics</h1>
          <p className="lead">
            Computed from the OMOP CDM layer (L4) of the knowledge graph: {formatNumber(d.totals.persons)}{" "}
            persons, concept names from the ontology layer (L5). Ages at {d.ageReferenceDate}.
          </p>
        </div>
        <div className="actions">
          <a className="button" href="/analytics.csv" download data-testid="csv-export">
            Download CSV
          </a>
        </div>
      </div>

      {k !== null ? (
        <p className="notice" data-testid="k-notice">
          Your scope applies k = {k}: counts from 1 to {k - 1} are suppressed and shown as <Suppressed />, as
          is any count that would let one be recomputed; the other figures of a suppressed group (mean,
          spread, out-of-range counts) show as —. A condition, drug or measurement whose count is suppressed
          is left out of the top lists.
        </p>
      ) : null}

      <div className="stat-grid ins-totals">
        {(
          [
            ["persons", "Persons"],
            ["visits", "Visits"],
            ["conditionOccurrences", "Condition occurrences"],
            ["drugExposures", "Drug exposures"],
            ["measurements", "Measurements"],
          ] as const
        ).map(([key, label]) => (
          <div key={key} className="card stat layer-l4" data-testid={`total-${key}`}>
            <span className="stat-label">{label}</span>
            <span className="stat-value">{formatNumber(d.totals[key])}</span>
          </div>
        ))}
      </div>

      <div className="ins-grid">
        <div className="card">
          <BarChart title="Top conditions (persons)" data={d.conditions} testId="chart-conditions" />
        </div>
        <div className="card">
          <BarChart title="Top drugs (persons exposed)" data={d.drugs} testId="chart-drugs" />
        </div>
        <div className="card">
          <BarChart title="Persons by gender" testId="chart-gender" data={d.gender} />
          <BarChart title="Persons by data holder" testId="chart-holders" data={d.holders} />
        </div>
        <div className="card">
          <ColumnChart id="age" title="Persons by age band" testId="chart-age" data={d.ageBands} />
        </div>
      </div>

      <div className="card flush">
        <div className="table-wrap">
          <DataTable
            data-testid="measurements"
            caption={<caption className="ins-caption">Top measurements</caption>}
            columns={[
              "Measurement",
              "LOINC",
              num("Persons"),
              num("Records"),
              num("Mean"),
              num("SD"),
              "Unit",
              num("Above range"),
              num("Below range"),
            ]}
          >
            {d.measurements.map((m) => (
              <tr key={m.code}>
                <td>{m.display}</td>
                <td>
                  <code>{m.code}</code>
                </td>
                <td className="num">{m.suppressed ? <Suppressed /> : formatNumber(m.persons)}</td>
                <td className="num">{m.rows === null ? <Suppressed /> : formatNumber(m.rows)}</td>
                <td className="num">{m.mean ?? "—"}</td>
                <td className="num">{m.sd ?? "—"}</td>
                <td>{m.unit}</td>
                <td className="num">{m.aboveRange === null ? "—" : formatNumber(m.aboveRange)}</td>
                <td className="num">{m.belowRange === null ? "—" : formatNumber(m.belowRange)}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      </div>

      <div className="ins-grid">
        <ScopePanel scope={d.scope} />
        <aside className="card">
          <h2>How these figures are made</h2>
          <ul className="small">
            <li>{withLayerNames(d.source)}.</li>
            {d.notes.map((n) => (
              <li key={n}>{withLayerNames(n)}.</li>
            ))}
            <li>
              Graph version {d.graphVersion};{" "}
              {d.cache.hit ? "served from the cache" : `computed in ${formatNumber(d.cache.builtMs)} ms`}{" "}
              (recomputed only after the OMOP layer changes).
            </li>
          </ul>
        </aside>
      </div>
    </section>
  );
}
