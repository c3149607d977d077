import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { BarChart, ColumnChart, reasonText, Suppressed } from "../../components/insight/charts";
import { clientError } from "../../lib/api-errors.server";
import { Badge } from "../../components/ui/Badge";
import { formatNumber } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { COHORT_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable, num } from "../../components/route-kit/DataTable";
import { Filter } from "../../components/route-kit/Filter";
import { optionList } from "../../components/route-kit/options";

const CRITERIA = ["condition", "drug", "measurement", "ageBand", "gender"] as const;

export const meta: MetaFunction = () => [{ title: "Cohort builder · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, COHORT_ROLES);
  const url = new URL(request.url);
  const { federated } = context.services;
  const options = await federated.options();
  const asked = CRITERIA.some((c) => url.searchParams.get(c)) || url.searchParams.has("run");
  const values = Object.fromEntries([...CRITERIA, "k"].map((c) => [c, url.searchParams.get(c) ?? ""]));
  if (!asked) return { options, values, summary: null, error: null };
  try {
    return { options, values, summary: await federated.summary(url.searchParams, user), error: null };
  } catch (e) {
    return { options, values, summary: null, error: clientError(e).message };
  }
}

const bar = (s: { key: string; count: number | null; suppressed: boolean }) => ({
  key: s.key,
  label: s.key,
  value: s.count,
  suppressed: s.suppressed,
});

function Count({ c }: { c: { count: number | null; suppressed: boolean; reason?: string } }) {
  return c.suppressed ? <Suppressed reason={c.reason} /> : <>{formatNumber(c.count)}</>;
}

export default function Cohorts() {
  const { options, values, summary, error } = useLoaderData<typeof loader>();
  const busy = useNavigation().state !== "idle";
  const select = (name: string, label: string, list: { code: string; display: string }[]) => (
    <Filter label={label}>
      <select name={name} defaultValue={values[name]} data-testid={`criterion-${name}`}>
        <option value="">any</option>
        {optionList(list, (o) => [o.code, o.display])}
      </select>
    </Filter>
  );
  const suppressedAny = summary
    ? Object.values(summary.suppression.counts).some((n) => n > 0) || summary.cohort.suppressed
    : false;
  return (
    <section className="ins-page" data-testid="cohorts">
      <h1>Federated cohort builder</h1>
      <p className="lead">
        Count a cohort in every data holder's secure processing environment. Only k-anonymous aggregates
        leave: counts from 1 to {options.k - 1} are suppressed, and so is any count that would let one be
        recomputed.
      </p>
      <Form method="get" className="card filters" data-testid="cohort-form">
        {select("condition", "Condition (SNOMED CT)", options.conditions)}
        {select("drug", "Drug (RxNorm)", options.drugs)}
        {select("measurement", "Measurement (LOINC)", options.measurements)}
        <Filter label="Age band">
          <select name="ageBand" defaultValue={values.ageBand}>
            <option value="">any</option>
            {options.ageBands.map((b) => (
              <option key={b}>{b}</option>
            ))}
          </select>
        </Filter>
        <Filter label="Gender">
          <select name="gender" defaultValue={values.gender}>
            <option value="">any</option>
            <option value="female">female</option>
            <option value="male">male</option>
          </select>
        </Filter>
        <Filter label={<>k (at least {options.k})</>}>
          <input
            type="number"
            name="k"
            min={options.k}
            max={1000}
            defaultValue={values.k || options.k}
            style={{ width: "6rem" }}
          />
        </Filter>
        <div className="filter-actions">
          <button
            type="submit"
            name="run"
            value="1"
            className="button"
            disabled={busy}
            data-testid="cohort-run"
          >
            {busy ? "Counting…" : "Count across environments"}
          </button>
          <AppLink to="/cohorts" className="button ghost">
            Reset
          </AppLink>
        </div>
      </Form>

      {error ? (
        <p className="notice error" role="alert" data-testid="cohort-error">
          {error}
        </p>
      ) : null}

      {summary ? (
        <>
          <div className="card ins-cohort-head" data-testid="cohort-result">
            <div>
              <span className="stat-label">Cohort</span>
              <div className="stat-value" data-testid="cohort-total">
                <Count c={summary.cohort} />
              </div>
              <p className="small muted">
                {Object.entries(summary.criteria)
                  .map(
                    ([key, c]) =>
                      `${key}: ${c && "display" in c && c.display ? `${c.display} (${c.system} ${c.code})` : c?.value}`,
                  )
                  .join(" · ") || "all persons"}
              </p>
            </div>
            <div className="tags">
              <Badge tone="warn">k = {summary.k}</Badge>
              {suppressedAny ? (
                <Badge tone="danger" testId="suppression-flag">
                  cells suppressed
                </Badge>
              ) : (
                <Badge tone="ok">nothing suppressed</Badge>
              )}
            </div>
          </div>

          <div className="ins-grid">
            <div className="card flush">
              <DataTable
                data-testid="environments"
                caption={<caption className="ins-caption">Per secure processing environment</caption>}
                columns={["Environment", num("Patients"), "Status"]}
              >
                {summary.environments.map((e) => (
                  <tr key={e.holder} className={e.suppressed ? "ins-row-suppressed" : undefined}>
                    <td>{e.environment}</td>
                    <td className="num">
                      <Count c={e} />
                    </td>
                    <td className="small">{e.suppressed ? reasonText(e.reason ?? "") : "published"}</td>
                  </tr>
                ))}
              </DataTable>
            </div>
            <div className="card">
              <BarChart
                title="By gender (pooled)"
                testId="cohort-gender"
                data={summary.strata.gender
                  .filter((g) => g.suppressed || g.count !== 0 || g.key === "female" || g.key === "male")
                  .map(bar)}
              />
            </div>
          </div>
          <div className="card">
            <ColumnChart
              id="cohort-age"
              title="By age band (pooled)"
              testId="cohort-age"
              data={summary.strata.ageBand.map(bar)}
            />
          </div>

          <aside className="card ins-legend" data-testid="suppression-legend">
            <h2>How the counts are protected</h2>
            <p className="small">
              <Suppressed /> marks a suppressed cell. Suppressed in this answer:{" "}
              {summary.suppression.counts["below-k"]} below k, {summary.suppression.counts.complementary}{" "}
              complementary, {summary.suppression.counts.differencing} by the differencing guard,{" "}
              {summary.suppression.counts["parent-suppressed"]} because their total is suppressed.
            </p>
            <ul className="small">
              {summary.method.map((m) => (
                <li key={m}>{m}</li>
              ))}
              {summary.suppression.differencingChecked.length ? (
                <li>
                  Compared with the queries without: {summary.suppression.differencingChecked.join(", ")}.
                </li>
              ) : null}
            </ul>
          </aside>
        </>
      ) : !error ? (
        <p className="muted">Choose criteria and count. Every query is recorded in the audit log.</p>
      ) : null}
    </section>
  );
}
