import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { GovNav, HealthBadge, Outcome, PageHead } from "../../components/governance/ui";
import { failure } from "../../lib/api-errors.server";
import { withLayerNames } from "../../components/ui/labels";
import { formatDateTime } from "../../components/ui/format";
import { requireRole } from "../../session.server";
import { ADMIN_ROLES } from "../../lib/access.server";
import { AppLink } from "../../components/ui/app-link";
import { FieldRow } from "../../components/route-kit/FieldRow";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.diagnosis.component.label ?? "Component"} · Components · Health Dataspace Hub` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireRole(request, context, ADMIN_ROLES);
  try {
    return { diagnosis: await context.services.operator.diagnosis(params.name ?? "") };
  } catch (e) {
    if (e && typeof e === "object" && (e as { status?: number }).status === 404)
      throw new Response((e as Error).message, { status: 404 });
    throw e;
  }
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireRole(request, context, ADMIN_ROLES);
  try {
    const r = await context.services.operator.restart(params.name ?? "", context.services, user.username);
    const also = r.alsoRestarted.length ? ` (with ${r.alsoRestarted.join(", ")})` : "";
    return {
      ok: true,
      message: `Restarted${also} in ${r.durationMs} ms: ${r.action}. Now ${r.component.health}.`,
    };
  } catch (e) {
    return failure(e);
  }
}

/** a component another depends on or is used by, linked to its page; the hub has none */
const Dependency = ({ name }: { name: string }) =>
  name === "hub" ? (
    <span className="gov-dep">the hub</span>
  ) : (
    <AppLink to={`/components/${name}`} className="gov-dep">
      {name}
    </AppLink>
  );

export default function ComponentDiagnosis() {
  const { diagnosis: d } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const c = d.component;
  return (
    <section className="gov">
      <p className="breadcrumb">
        <AppLink to="/components">Components</AppLink> / {c.label}
      </p>
      <PageHead title={c.label} lead={c.kind}>
        <Form method="post">
          <button type="submit" className="button" disabled={busy}>
            Restart {c.label.toLowerCase()}
          </button>
        </Form>
      </PageHead>
      <GovNav />
      <Outcome result={result} />
      <div className="two-col gov-cols">
        <div className="card" data-testid="probe">
          <h2>What the probe saw</h2>
          <dl className="fields">
            <FieldRow label="Health">
              <HealthBadge health={c.health} testId="diagnosis-health" />
            </FieldRow>
            <FieldRow label="Probe">{d.probe.call}</FieldRow>
            <div className="field-row">
              <dt>Answer</dt>
              <dd data-testid="observed">{withLayerNames(d.probe.observed)}</dd>
            </div>
            <FieldRow label="Time">
              {d.probe.latencyMs ?? "—"} ms (degraded above {d.probe.thresholdMs} ms),{" "}
              {formatDateTime(d.probe.at)}
            </FieldRow>
            <FieldRow label="Version">{c.version}</FieldRow>
            <FieldRow label="Address">
              <code>{c.url}</code>
            </FieldRow>
            <FieldRow label="Depends on">
              {d.dependsOn.length ? d.dependsOn.map((n) => <Dependency key={n} name={n} />) : "nothing"}
            </FieldRow>
            <FieldRow label="Used by">
              {d.usedBy.map((n) => (
                <Dependency key={n} name={n} />
              ))}
            </FieldRow>
          </dl>
        </div>
        <div className="card">
          <h2>Remedy</h2>
          <ul data-testid="remedy">
            {d.remedy.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
          <h2>Last error</h2>
          <p data-testid="last-error">
            {d.lastError
              ? `${formatDateTime(d.lastError.at)}: ${d.lastError.message}`
              : "None since the hub started."}
          </p>
          <h2>Last restart</h2>
          <p data-testid="last-restart">
            {d.lastRestart
              ? `${formatDateTime(d.lastRestart.at)} by ${d.lastRestart.by}: ${d.lastRestart.outcome}`
              : "None since the hub started."}
          </p>
        </div>
      </div>
    </section>
  );
}
