import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { civil } from "../../components/access-body/ui";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [
  { title: "Secondary use of health data: information · MedReg DE · Health Dataspace Hub" },
];

/** no session needed: static mode shows it without a persona too (app/root.tsx) */
export const handle = { publicPage: true };

/** Public: what the access body tells everyone about secondary use (Art. 58(1)). */
export async function loader({ context }: LoaderFunctionArgs) {
  return { info: await context.services.accessBody.information() };
}

const Bullets = ({ items }: { items: readonly string[] }) => (
  <ul>
    {items.map((c) => (
      <li key={c}>{c}</li>
    ))}
  </ul>
);

export default function Information() {
  const { info } = useLoaderData<typeof loader>();
  return (
    <section className="ab-public">
      <h1>Secondary use of health data</h1>
      <p className="lead">
        {info.accessBody.name} — {info.accessBody.role}. Contact: {info.accessBody.contact}.
      </p>
      <div className="stat-grid ab-stats">
        {(
          [
            ["Permits issued", info.permitsIssued.total, "permits-issued"],
            ["Active now", info.permitsIssued.active],
            ["Revoked", info.permitsIssued.revoked],
            ["Results published", info.publishedResults.length],
          ] as const
        ).map(([label, value, testId]) => (
          <div className="card stat" key={label}>
            <span className="stat-label">{label}</span>
            <span className="stat-value" data-testid={testId}>
              {value}
            </span>
          </div>
        ))}
      </div>
      <div className="two-col">
        <div>
          <h2>How to apply</h2>
          <ol className="ab-steps">
            {info.howToApply.map((s) => (
              <li key={s.step}>
                <strong>{s.title}.</strong> {s.detail}
              </li>
            ))}
          </ol>
          <p>
            <AppLink to="/applications" className="button">
              Apply (sign-in as a data user)
            </AppLink>{" "}
            <AppLink to="/register" className="button ghost">
              Register of permits
            </AppLink>
          </p>
          <h2>Purposes data may be used for (Art. 53(1))</h2>
          <DataTable columns={["Purpose", "What it covers", "Permits"]}>
            {info.purposes.map((p) => (
              <tr key={p.code}>
                <td>
                  {p.label}
                  <div className="muted ab-small">{p.point}</div>
                </td>
                <td>{p.description}</td>
                <td>{p.permitsIssued}</td>
              </tr>
            ))}
          </DataTable>
          <h2>Conditions</h2>
          <Bullets items={info.conditions} />
        </div>
        <div>
          <h2>Legal basis</h2>
          <Bullets items={info.legalBasis} />
          <h2>How your data are protected</h2>
          <Bullets items={info.technicalMeasures} />
          <h2>Your rights</h2>
          <Bullets items={info.rightsOfNaturalPersons} />
          <h2>Time limits</h2>
          <table className="data ab-small">
            <tbody>
              {info.statutoryPeriods.map((p) => (
                <tr key={p.id}>
                  <td>{p.label}</td>
                  <td className="nowrap">
                    {p.amount} {p.unit === "workingDays" ? "working days" : p.unit}
                  </td>
                  <td className="nowrap">
                    {p.article}
                    {p.verification === "unverified" ? (
                      <div className="muted">citation to be confirmed</div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted ab-small">{info.countingRules}</p>
        </div>
      </div>
      <h2>Who has been granted access (Art. 58(1)(f))</h2>
      <DataTable
        data-testid="information-permits"
        columns={["Permit", "Data user", "Datasets", "Purpose", "Issued", "Status"]}
      >
        {info.permitsIssued.list.map((p) => (
          <tr key={p.id}>
            <td>{p.id}</td>
            <td>{p.organisation}</td>
            <td>{p.datasets.join("; ")}</td>
            <td>{p.purposeLabel}</td>
            <td className="nowrap">{civil(p.issuedDate)}</td>
            <td>{p.state.toLowerCase()}</td>
          </tr>
        ))}
      </DataTable>
      {info.publishedResults.length ? (
        <>
          <h2>Results of projects (Art. 58(1)(g))</h2>
          <ul>
            {info.publishedResults.map((r) => (
              <li key={r.id}>
                {r.title} — {r.organisation}
                {r.url ? (
                  <>
                    {" "}
                    · <a href={r.url}>{r.url}</a>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
