import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GovNav, PageHead } from "../../components/governance/ui";
import { Badge } from "../../components/ui/Badge";
import { roleLabel } from "../../components/ui/labels";
import { requireRole } from "../../session.server";
import { ADMIN_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Tenants · Operator console · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, ADMIN_ROLES);
  try {
    return { tenants: await context.services.operator.tenants(), error: null };
  } catch (e) {
    if (e && typeof e === "object" && [502, 503].includes((e as { status?: number }).status ?? 0))
      return { tenants: [], error: (e as Error).message };
    throw e;
  }
}

export default function Tenants() {
  const { tenants, error } = useLoaderData<typeof loader>();
  return (
    <section className="gov">
      <PageHead
        title="Tenants"
        lead="The organisations the tenant manager hosts, with the participant profiles it deployed for them (DID, keys and participant context)."
      >
        <AppLink to="/onboarding" className="button ghost">
          Onboard a participant
        </AppLink>
      </PageHead>
      <GovNav />
      {error ? <p className="notice error">{error}</p> : null}
      <div className="table-wrap card flush">
        <DataTable
          data-testid="tenants"
          columns={["Tenant", "Role", "EHDS participant type", "Participant profiles"]}
        >
          {tenants.map((t) => (
            <tr key={t.id} data-testid={`tenant-${t.id}`}>
              <th scope="row">
                {t.displayName}
                <div className="small muted">
                  <code>{t.id}</code>
                </div>
              </th>
              <td>{t.role ? roleLabel(t.role) : "—"}</td>
              <td>{t.ehdsParticipantType ? roleLabel(t.ehdsParticipantType) : "—"}</td>
              <td>
                <ul className="plain">
                  {t.participants.map((p) => (
                    <li key={p.id}>
                      <code className="wrap">{p.did ?? p.identifier}</code>{" "}
                      <Badge tone={p.state === "ACTIVE" ? "ok" : p.state === "ERROR" ? "danger" : "warn"}>
                        {p.state.toLowerCase()}
                      </Badge>
                      {p.participantContextId ? (
                        <span className="small muted"> context {p.participantContextId}</span>
                      ) : null}
                      {p.errorDetail ? <div className="small field-error">{p.errorDetail}</div> : null}
                    </li>
                  ))}
                  {t.participants.length === 0 ? <li className="muted">none</li> : null}
                </ul>
              </td>
            </tr>
          ))}
          {tenants.length === 0 && !error ? (
            <tr>
              <td colSpan={4} className="empty">
                No tenants.
              </td>
            </tr>
          ) : null}
        </DataTable>
      </div>
      <p className="small muted">
        The catalogue crawler&apos;s list of participants is kept apart, in the{" "}
        <AppLink to="/directory">participant directory</AppLink>.
      </p>
    </section>
  );
}
