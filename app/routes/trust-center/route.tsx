import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GovNav, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { formatDate, formatDateTime, formatNumber, plural } from "../../components/ui/format";
import { odrlActionLabel, purposeLabel, stateLabel } from "../../components/ui/labels";
import { requireRole } from "../../session.server";
import { TRUST_CENTER_ROLES } from "../../lib/access.server";
import { DataTable, num } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Trust center · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, TRUST_CENTER_ROLES);
  return { view: await context.services.trustCenter.view(), admin: user.roles.includes("CONNECTOR_ADMIN") };
}

const SESSION_TONE = { active: "ok", scheduled: "info", closed: "neutral", terminated: "danger" } as const;
const RECOGNITION_TONE = { recognised: "ok", pending: "warn", suspended: "danger", none: "danger" } as const;

export default function TrustCenter() {
  const { view: v, admin } = useLoaderData<typeof loader>();
  const countries = [...new Set(v.mutualRecognition.agreements.flatMap((a) => [a.from, a.to]))].sort();
  // a linkage names its datasets by id: read as their titles, as the table above them
  const datasetTitle = (id: string) =>
    v.pseudonymResolution.datasets.find((d) => d.datasetId === id)?.title ?? id;
  return (
    <section className="gov trust-center">
      <PageHead
        title="Trust center"
        lead={`Pseudonym resolution, record linkage, mutual recognition and secure processing sessions, derived from the dataspace's permits and datasets. k = ${v.k}: no output cell below ${v.k} leaves a session.`}
      />
      {admin ? <GovNav /> : null}
      <div className="stat-grid gov-stats" data-testid="tc-summary">
        <div className="card stat">
          <span className="stat-label">Trust centers</span>
          <span className="stat-value">{v.summary.trustCenters}</span>
        </div>
        <div className="card stat">
          <span className="stat-label">Pseudonymised datasets</span>
          <span className="stat-value">{v.summary.pseudonymisedDatasets}</span>
        </div>
        <div className="card stat">
          <span className="stat-label">Pseudonymised patients</span>
          <span className="stat-value" data-testid="patients-covered">
            {formatNumber(v.summary.patientsCovered)}
          </span>
          <span className="muted small">
            {v.trustCenters
              .filter((c) => c.patients !== 0)
              .map(
                (c) => `${c.country} ${c.patients === null ? `fewer than ${v.k}` : formatNumber(c.patients)}`,
              )
              .join(" · ")}
          </span>
        </div>
        <div className="card stat gov-stat-good">
          <span className="stat-label">Active processing sessions</span>
          <span className="stat-value" data-testid="active-sessions">
            {v.summary.activeSessions}
          </span>
        </div>
        <div className={`card stat ${v.summary.uncoveredFlows ? "gov-stat-bad" : "gov-stat-good"}`}>
          <span className="stat-label">Cross-border flows without recognition</span>
          <span className="stat-value">{v.summary.uncoveredFlows}</span>
        </div>
      </div>

      <h2 id="sessions">Secure processing sessions</h2>
      <div className="table-wrap card flush">
        <DataTable
          data-testid="spe-sessions"
          aria-labelledby="sessions"
          columns={["Permit", "Data user", "Datasets", "State", "Period", "Output policy"]}
        >
          {v.speSessions.map((s) => (
            <tr key={s.id} data-testid={`session-${s.permitNumber}`}>
              <th scope="row" className="nowrap">
                {s.permitNumber}
                <div className="small muted">{s.environment}</div>
              </th>
              <td>
                {s.dataUser}
                {s.purpose ? <div className="small muted">{purposeLabel(s.purpose)}</div> : null}
              </td>
              <td className="small">
                {s.datasets.length ? (
                  s.datasets.map((d) => d.title).join("; ")
                ) : (
                  <span className="muted">none linked yet</span>
                )}
              </td>
              <td>
                <Badge tone={SESSION_TONE[s.state]}>{stateLabel(s.state)}</Badge>
                {s.trustCenter ? <div className="small muted">{s.trustCenter}</div> : null}
              </td>
              <td className="small nowrap">
                {s.openedAt && s.closesAt
                  ? `${formatDate(s.openedAt)} – ${formatDate(s.closesAt)}`
                  : s.openedAt
                    ? `from ${formatDate(s.openedAt)}, no end recorded`
                    : s.closesAt
                      ? `until ${formatDate(s.closesAt)}`
                      : "not scheduled"}
              </td>
              <td className="small">
                <strong>k = {s.k}</strong>, aggregate outputs only
                <details>
                  <summary>output policy</summary>
                  <p className="gov-policy-text">
                    {s.outputPolicy.suppression}; {s.outputPolicy.review}. Prohibited:{" "}
                    {s.outputPolicy.prohibited.map(odrlActionLabel).join(", ")}. Obligations:{" "}
                    {s.outputPolicy.obligations.map(odrlActionLabel).join(", ")}.
                  </p>
                </details>
              </td>
            </tr>
          ))}
        </DataTable>
      </div>

      <div className="two-col gov-cols">
        <div>
          <h2 id="pseudonyms">Pseudonym resolution</h2>
          <p className="small muted">{v.pseudonymResolution.scheme}.</p>
          <div className="table-wrap card flush">
            <DataTable
              className="data compact"
              data-testid="pseudonym-domains"
              aria-labelledby="pseudonyms"
              columns={["Dataset", "Trust center", num("Patients")]}
            >
              {v.pseudonymResolution.datasets.map((d) => (
                <tr key={d.datasetId}>
                  <td>
                    {d.title}
                    <div className="small muted">
                      <code>{d.domain}</code>
                    </div>
                  </td>
                  <td className="small">{d.trustCenter ?? "none"}</td>
                  <td className="num">
                    {d.patients === null ? `fewer than ${v.k} (suppressed)` : formatNumber(d.patients)}
                  </td>
                </tr>
              ))}
            </DataTable>
          </div>
          <h3>Record linkage for permits in force</h3>
          <ul className="gov-linkages" data-testid="linkages">
            {v.pseudonymResolution.linkages.map((l) => (
              <li key={l.id}>
                <strong>{l.dataUser}</strong>: {l.datasets.map(datasetTitle).join(" × ")} —{" "}
                {l.suppressed ? (
                  <Badge tone="warn">{`fewer than ${v.k} linked (suppressed)`}</Badge>
                ) : (
                  <Badge tone={l.linkedPatients ? "ok" : "neutral"}>{`${l.linkedPatients} linked`}</Badge>
                )}
                <div className="small muted">
                  {l.note}; permits {l.permitNumbers.join(", ")}
                </div>
              </li>
            ))}
            {v.pseudonymResolution.linkages.length === 0 ? (
              <li className="muted">No permit in force covers two datasets.</li>
            ) : null}
          </ul>
        </div>
        <div>
          <h2 id="recognition">Mutual recognition</h2>
          <div className="table-wrap card flush">
            <table
              className="data compact gov-matrix"
              data-testid="recognition"
              aria-labelledby="recognition"
            >
              <thead>
                <tr>
                  <th>
                    <span className="visually-hidden">From</span> ↓ recognises →
                  </th>
                  {countries.map((c) => (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {countries.map((from) => (
                  <tr key={from}>
                    <th scope="row">{from}</th>
                    {countries.map((to) => {
                      const r = v.mutualRecognition.agreements.find((a) => a.from === from && a.to === to);
                      return (
                        <td key={to} title={r?.basis}>
                          {from === to ? (
                            "—"
                          ) : r ? (
                            <Badge tone={RECOGNITION_TONE[r.status]}>{stateLabel(r.status)}</Badge>
                          ) : (
                            <Badge tone="danger">none</Badge>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Cross-border contracts</h3>
          <ul className="gov-flows" data-testid="flows">
            {v.mutualRecognition.crossBorderFlows.map((f) => (
              <li key={f.contractId}>
                {f.provider} ({f.providerCountry}) → {f.consumer} ({f.consumerCountry}), {f.contractId}{" "}
                {stateLabel(f.contractStatus).toLowerCase()}:{" "}
                <Badge tone={RECOGNITION_TONE[f.recognition]}>
                  {f.covered ? "covered" : `not covered (${f.recognition})`}
                </Badge>
              </li>
            ))}
          </ul>
          <h2>Trust centers</h2>
          <ul className="plain gov-centres" data-testid="trust-centers">
            {v.trustCenters.map((c) => (
              <li key={c.id} className="card">
                <strong>{c.name}</strong> <span className="small muted">{c.did}</span>
                <div className="small">
                  {plural(c.datasets, "dataset")},{" "}
                  {c.patients === null
                    ? `fewer than ${v.k} pseudonymised patients`
                    : plural(c.patients, "pseudonymised patient")}
                  , {plural(c.activeSessions, "active session")}; access body:{" "}
                  {c.accessBody ? c.accessBody.name : "none in this dataspace"}
                </div>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <p className="small muted">
        Generated {formatDateTime(v.generatedAt)} from the marketplace, catalogue and permits in the graph.
      </p>
    </section>
  );
}
