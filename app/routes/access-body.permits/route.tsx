import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actionForm, runAction, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import { AccessBodyHead, Notice, StateBadge, civil } from "../../components/access-body/ui";
import { requireRole } from "../../session.server";
import { HDAB_DECIDER_ROLES, HDAB_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable } from "../../components/route-kit/DataTable";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [{ title: "Permits · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  // ?state=ACTIVE: the permits in force (the home card "Data permits in force" reads the same)
  const state = new URL(request.url).searchParams.get("state") === "ACTIVE" ? "ACTIVE" : "";
  const permits = await context.services.accessBody.listPermits(user, state ? { state } : {});
  return {
    state,
    canRevoke: user.roles.includes("HDAB_AUTHORITY"),
    permits: permits
      .map((p) => ({
        ...pick(p, "id applicationId organisation issuedDate validUntil state revocation"),
        datasets: p.datasetTitles,
        purpose: p.purposeLabel,
        contracts: p.contractIds,
      }))
      .sort((a, b) => b.issuedDate.localeCompare(a.issuedDate) || b.id.localeCompare(a.id)),
  };
}

export async function action({ request, context }: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const { user, f } = await actionForm(request, context, HDAB_DECIDER_ROLES);
  return runAction(
    "revoke",
    () => context.services.accessBody.revokePermit({ permitId: f.permitId, reason: f.reason }, user),
    `Permit ${f.permitId} revoked; the contracts it backed are suspended.`,
  );
}

export default function Permits() {
  const { permits, canRevoke, state } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  return (
    <section>
      <AccessBodyHead title="Data permits">
        Permits issued (Art. 68), with the marketplace contracts they back. The public version is the{" "}
        <AppLink to="/register">register</AppLink>.
      </AccessBodyHead>
      <Notice result={result} />
      <p className="muted" data-testid="permits-filter">
        {state === "ACTIVE" ? (
          <>
            Permits in force only · <AppLink to="/access-body/permits">show every permit</AppLink>
          </>
        ) : (
          <>
            Every permit · <AppLink to="/access-body/permits?state=ACTIVE">show the permits in force</AppLink>
          </>
        )}
      </p>
      <DataTable
        data-testid="permits"
        columns={[
          "Permit",
          "Holder",
          "Datasets",
          "Purpose",
          "Issued",
          "Valid until",
          "State",
          canRevoke ? "Revoke" : null,
        ]}
      >
        {permits.map((p) => (
          <tr key={p.id} data-testid={`permit-${p.id}`}>
            <td>
              {p.id}
              <div className="ab-small">
                <AppLink to={`/access-body/applications/${p.applicationId}`}>{p.applicationId}</AppLink>
                {p.contracts.length ? <span className="muted"> · backs {p.contracts.join(", ")}</span> : null}
              </div>
            </td>
            <td>{p.organisation}</td>
            <td>{p.datasets.join("; ")}</td>
            <td>{p.purpose}</td>
            <td className="nowrap">{civil(p.issuedDate)}</td>
            <td className="nowrap">{civil(p.validUntil)}</td>
            <td>
              <StateBadge state={p.state} />
              {p.revocation ? <div className="ab-small">{p.revocation.reason}</div> : null}
            </td>
            {canRevoke ? (
              <td>
                {p.state === "ACTIVE" ? (
                  <Form method="post" className="ab-inline">
                    <input type="hidden" name="permitId" value={p.id} />
                    <input
                      name="reason"
                      placeholder="Reason"
                      required
                      aria-label={`Reason to revoke ${p.id}`}
                    />
                    <button className="button danger" disabled={busy}>
                      Revoke
                    </button>
                  </Form>
                ) : null}
              </td>
            ) : null}
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
