import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { AccessBodyHead, berlin } from "../../components/access-body/ui";
import { Badge } from "../../components/ui/Badge";
import { requireRole } from "../../session.server";
import { HDAB_ROLES } from "../../lib/access.server";
import { DataTable } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Compliance · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  const ab = context.services.accessBody;
  const rerun = new URL(request.url).searchParams.get("run") === "1";
  const [summary, tck] = await Promise.all([
    ab.compliance(user),
    ab.tck({ rerun, cookie: request.headers.get("cookie") ?? undefined }),
  ]);
  return { summary, tck };
}

const tone = (s: string) =>
  s === "complete" || s === "compliant" || s === "pass"
    ? "ok"
    : s === "violation" || s === "non-compliant" || s === "fail"
      ? "danger"
      : s === "broken" || s === "attention"
        ? "warn"
        : "neutral";

export default function Compliance() {
  const { summary, tck } = useLoaderData<typeof loader>();
  return (
    <section>
      <AccessBodyHead title="Compliance">
        Per participant: the chain application → approval → permit → contract, its DID and DSP endpoint; and
        live conformance probes of this system.
      </AccessBodyHead>
      <div className="card ab-card" data-testid="tck">
        <h2>Conformance probes</h2>
        <p className="muted ab-small">
          Ran {berlin(tck.ranAt)}
          {tck.cached ? " · cached" : ""} · {tck.summary.pass} pass, {tck.summary.fail} fail,{" "}
          {tck.summary.skip} skipped
        </p>
        <Form method="get">
          <input type="hidden" name="run" value="1" />
          <button className="button ghost">Run again</button>
        </Form>
        <DataTable className="data ab-small" columns={["Suite", "Probe", "Status", "Detail"]}>
          {tck.results.map((p) => (
            <tr key={p.id}>
              <td>{p.suite}</td>
              <td>
                {p.title}
                <div className="muted">{p.id}</div>
              </td>
              <td>
                <Badge tone={tone(p.status)}>{p.status}</Badge>
              </td>
              <td>{p.detail}</td>
            </tr>
          ))}
        </DataTable>
      </div>
      {summary.participants.map((p) => (
        <div key={p.participantId} className="card ab-card">
          <h2>
            {p.displayName} <Badge tone={tone(p.status)}>{p.status}</Badge>
          </h2>
          <p className="muted ab-small">
            {p.role} · {p.dcp.did} {p.dcp.wellFormed ? "" : "(not a well-formed did:web)"} · DSP{" "}
            {p.dsp.endpoint ?? "—"}
          </p>
          {p.ehds.chains.length ? (
            <DataTable
              className="data ab-small"
              columns={["Application", "Approval", "Permit", "Contract", "Chain"]}
            >
              {p.ehds.chains.map((c, i) => (
                <tr key={i}>
                  <td>
                    {c.application ? `${c.application.id} (${c.application.state.toLowerCase()})` : "—"}
                  </td>
                  <td>{c.approval ? `${c.approval.id} (${c.approval.status.toLowerCase()})` : "—"}</td>
                  <td>{c.permit ? `${c.permit.id} (${c.permit.state.toLowerCase()})` : "—"}</td>
                  <td>
                    {c.contracts.length ? c.contracts.map((k) => `${k.id} (${k.status})`).join(", ") : "—"}
                  </td>
                  <td>
                    <Badge tone={tone(c.status)}>{c.status}</Badge>{" "}
                    {c.breaksAt ? <span className="muted">breaks at {c.breaksAt}: </span> : null}
                    {c.reason}
                  </td>
                </tr>
              ))}
            </DataTable>
          ) : (
            <p className="muted">No chains.</p>
          )}
        </div>
      ))}
    </section>
  );
}
