import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { StateBadge, civil } from "../../components/access-body/ui";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [
  { title: "Register of applications and permits · MedReg DE · Health Dataspace Hub" },
];

/** no session needed: static mode shows it without a persona too (app/root.tsx) */
export const handle = { publicPage: true };

/** Public: the register of applications, data requests and permits (Art. 57(1)(j)). */
export async function loader({ context }: LoaderFunctionArgs) {
  return { register: await context.services.accessBody.register() };
}

export default function Register() {
  const { register: r } = useLoaderData<typeof loader>();
  return (
    <section className="ab-public">
      <h1>Register of data permits and applications</h1>
      <p className="lead">
        {r.accessBody.name}, health data access body · {r.legalBasis} As of {civil(r.asOf)}. Organisations,
        datasets, purposes, dates and decisions only — no personal data.
      </p>
      <p>
        <AppLink to="/information">How secondary use works and how to apply</AppLink>
      </p>
      <h2>Data permits</h2>
      <DataTable
        data-testid="register-permits"
        columns={["Permit", "Data user", "Datasets", "Purpose", "Issued", "Valid until", "Status"]}
      >
        {r.permits.map((p) => (
          <tr key={p.id} data-testid={`register-${p.id}`}>
            <td className="nowrap">{p.id}</td>
            <td>{p.organisation}</td>
            <td>{p.datasets.join("; ")}</td>
            <td>{p.purposeLabel}</td>
            <td className="nowrap">{civil(p.issuedDate)}</td>
            <td className="nowrap">{civil(p.validUntil)}</td>
            <td>
              <StateBadge state={p.state} />
              {p.revokedDate ? (
                <div className="ab-small">
                  revoked {civil(p.revokedDate)}: {p.revocationReason}
                </div>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
      <h2>Applications</h2>
      <DataTable
        data-testid="register-applications"
        columns={["Application", "Applicant", "Datasets", "Purpose", "Received", "Status", "Decision"]}
      >
        {r.applications.map((a) => (
          <tr key={a.id}>
            <td>
              {a.title}
              <div className="muted ab-small">{a.id}</div>
            </td>
            <td>{a.organisation}</td>
            <td>{a.datasets.join("; ")}</td>
            <td>{a.purposeLabel}</td>
            <td className="nowrap">{civil(a.receivedDate)}</td>
            <td>
              <StateBadge state={a.state} />
            </td>
            <td>
              {a.decision ? `${a.decision.toLowerCase()} ${civil(a.decisionDate)}` : "—"}
              {a.refusalReasons ? <div className="ab-small">Reasons: {a.refusalReasons}</div> : null}
              {a.permitId ? <div className="ab-small">permit {a.permitId}</div> : null}
            </td>
          </tr>
        ))}
      </DataTable>
      <h2>Data requests (anonymised statistics, Art. 69)</h2>
      <DataTable
        data-testid="register-requests"
        columns={["Request", "Requester", "Datasets", "Purpose", "Received", "Status"]}
      >
        {r.dataRequests.map((d) => (
          <tr key={d.id}>
            <td>
              {d.title}
              <div className="muted ab-small">{d.id}</div>
            </td>
            <td>{d.organisation}</td>
            <td>{d.datasets.join("; ")}</td>
            <td>{d.purposeLabel}</td>
            <td className="nowrap">{civil(d.receivedDate)}</td>
            <td>
              <StateBadge state={d.state} />
              {d.refusalReasons ? <div className="ab-small">Reasons: {d.refusalReasons}</div> : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
