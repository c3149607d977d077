import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Topology } from "../../components/governance/Topology";
import { GovNav, HealthBadge, Outcome, PageHead } from "../../components/governance/ui";
import { failure, readForm } from "../../lib/api-errors.server";
import { withLayerNames } from "../../components/ui/labels";
import { formatDateTime } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ADMIN_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { DataTable, num, ACTIONS } from "../../components/route-kit/DataTable";

export const meta: MetaFunction = () => [{ title: "Components · Operator console · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireRole(request, context, ADMIN_ROLES);
  const [components, topology] = await Promise.all([
    context.services.operator.components(),
    context.services.operator.topology(),
  ]);
  return { components: components.value, topology: topology.value };
}

/** POST name=<component>: restart it (the same as POST /api/admin/components/{name}/restart) */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireRole(request, context, ADMIN_ROLES);
  const name = String((await readForm(request)).get("name") ?? "");
  try {
    const r = await context.services.operator.restart(name, context.services, user.username);
    return { ok: true, message: `${r.component.label} restarted: ${r.action}. Now ${r.component.health}.` };
  } catch (e) {
    return failure(e);
  }
}

export default function Components() {
  const { components, topology } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="gov">
      <PageHead
        title="Components"
        lead="Everything the hub depends on, probed now: each probe is the cheapest real call that proves the component answers."
      />
      <GovNav />
      <Outcome result={result} />
      <div className="table-wrap card flush">
        <DataTable
          data-testid="components"
          columns={["Component", "Health", "Version", "Address", "What the probe saw", num("ms"), ACTIONS]}
        >
          {components.map((c) => (
            <tr key={c.name} data-testid={`component-${c.name}`}>
              <th scope="row">
                <AppLink to={`/components/${c.name}`}>{c.label}</AppLink>
                <div className="small muted">{c.kind}</div>
              </th>
              <td>
                <HealthBadge health={c.health} testId={`health-${c.name}`} />
              </td>
              <td className="small">{c.version}</td>
              <td className="small wrap">
                <code>{c.url}</code>
              </td>
              <td className="small">{withLayerNames(c.observed)}</td>
              <td className="num small">{c.latencyMs ?? "—"}</td>
              <td className="nowrap">
                <AppLink to={`/components/${c.name}`} className="button small ghost">
                  Diagnosis
                </AppLink>{" "}
                {c.restartable ? (
                  <Form method="post" className="gov-inline">
                    <input type="hidden" name="name" value={c.name} />
                    <button
                      type="submit"
                      className="button small"
                      disabled={busy}
                      aria-label={`Restart ${c.label}`}
                    >
                      Restart
                    </button>
                  </Form>
                ) : (
                  <span className="small muted" title="See its diagnosis for why">
                    no restart
                  </span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
      <p className="small muted">
        Probed {formatDateTime(components[0]?.checkedAt)}. Slower than 1.5 s counts as degraded.
      </p>
      <h2>Topology</h2>
      <div className="card">
        <Topology data={topology} />
      </div>
    </section>
  );
}
