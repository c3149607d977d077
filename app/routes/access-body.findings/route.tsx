import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actionForm, int, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import { runIntent } from "../../components/route-kit/intents.server";
import { AccessBodyHead, DaysLeft, Field, Notice, StateBadge, civil } from "../../components/access-body/ui";
import { intentFieldMessage } from "../../components/ui/field-errors";
import { requireRole } from "../../session.server";
import { FINDINGS_ROLES } from "../../lib/access.server";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [{ title: "Findings · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, FINDINGS_ROLES);
  const findings = await context.services.accessBody.listFindings(user);
  const staff = user.roles.includes("HDAB_AUTHORITY") || user.roles.includes("CONNECTOR_ADMIN");
  return {
    staff,
    canDecide: user.roles.includes("HDAB_AUTHORITY"),
    ...pick(user, "organisation roles"),
    organisations: context.services.accessBody.supervised,
    findings: findings
      .map((f) => ({
        ...pick(f, "id organisation subjectRole title description severity relatedPermitId state openedDate"),
        ...pick(f, "responseDueDate daysLeft overdue response closure"),
      }))
      .sort(
        (a, b) =>
          (a.state === "CLOSED" ? 1 : 0) - (b.state === "CLOSED" ? 1 : 0) ||
          b.openedDate.localeCompare(a.openedDate),
      ),
  };
}

export async function action({ request, context }: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const { user, ab, f } = await actionForm(request, context, FINDINGS_ROLES);
  return runIntent(
    f.intent ?? "",
    {
      open: [
        () =>
          ab.openFinding(
            {
              ...pick(f, "organisation subjectRole title description severity relatedPermitId"),
              responseDueInDays: int(f.responseDueInDays),
            },
            user,
          ),
        "Finding opened; the organisation has been asked to respond.",
      ],
      respond: [
        () => ab.respondFinding({ findingId: f.findingId, response: f.response }, user),
        "Response sent to the access body.",
      ],
      close: [
        () => ab.closeFinding({ findingId: f.findingId, outcome: f.outcome, note: f.note }, user),
        "Finding closed.",
      ],
    },
    "Unknown action",
  );
}

export default function Findings() {
  const d = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const err = (intents: string | string[], name: string) => intentFieldMessage(result, intents, name);
  const busy = useNavigation().state !== "idle";
  return (
    <section>
      <AccessBodyHead title="Supervision findings" nav={d.staff}>
        {d.staff
          ? "Findings about data users and data holders: open, responded, closed with an outcome."
          : `Findings of the access body about ${d.organisation}. Please respond before the date given.`}
      </AccessBodyHead>
      <Notice result={result} />
      <div className="ab-list" data-testid="findings">
        {d.findings.map((f) => (
          <article key={f.id} id={f.id} className={`card ab-card${f.overdue ? " ab-card-overdue" : ""}`}>
            <h2>
              {f.title} <StateBadge state={f.state} />
            </h2>
            <p className="muted ab-small">
              {f.id} · {f.organisation} ({f.subjectRole.replace("_", " ").toLowerCase()}) · severity{" "}
              {f.severity} · opened {civil(f.openedDate)}
              {f.relatedPermitId ? ` · permit ${f.relatedPermitId}` : ""}
            </p>
            <p className="ab-pre">{f.description}</p>
            {f.state === "OPEN" ? (
              <p>
                Response due {civil(f.responseDueDate)} ·{" "}
                <DaysLeft daysLeft={f.daysLeft} overdue={f.overdue} />
              </p>
            ) : null}
            {f.response ? (
              <p className="ab-answer ab-pre">
                <strong>Response of {civil(f.response.date)}:</strong> {f.response.text}
              </p>
            ) : null}
            {f.closure ? (
              <p>
                <strong>Closed {civil(f.closure.date)}</strong> — {f.closure.outcome}: {f.closure.note}
              </p>
            ) : null}
            {!d.staff && f.state === "OPEN" && d.roles.includes(f.subjectRole) ? (
              <Form method="post" className="ab-form">
                <input type="hidden" name="findingId" value={f.id} />
                <Field label="Your response" error={err("respond", "response")}>
                  <textarea name="response" rows={3} required />
                </Field>
                <button className="button" name="intent" value="respond" disabled={busy}>
                  Respond
                </button>
              </Form>
            ) : null}
            {d.canDecide && f.state !== "CLOSED" ? (
              <Form method="post" className="ab-form ab-inline-form">
                <input type="hidden" name="findingId" value={f.id} />
                <select name="outcome" aria-label="Outcome" defaultValue="resolved">
                  <option value="resolved">resolved</option>
                  <option value="no-breach">no breach</option>
                  <option value="penalty">penalty</option>
                  <option value="permit-revoked">permit revoked</option>
                </select>
                <input name="note" placeholder="Note" required aria-label="Note" />
                <button className="button ghost" name="intent" value="close" disabled={busy}>
                  Close finding
                </button>
              </Form>
            ) : null}
          </article>
        ))}
        {d.findings.length === 0 ? <p className="muted">No findings.</p> : null}
      </div>
      {d.canDecide ? (
        <Form method="post" className="card ab-card ab-form">
          <h2>Open a finding</h2>
          <div className="form-grid">
            <Field label="Organisation" error={err("open", "organisation")}>
              <select name="organisation" required>
                {d.organisations.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            </Field>
            <Field label="Addressed to its" error={err("open", "subjectRole")}>
              <select name="subjectRole">
                <option value="DATA_USER">data user role</option>
                <option value="DATA_HOLDER">data holder role</option>
              </select>
            </Field>
            <Field label="Severity" error={err("open", "severity")}>
              <select name="severity" defaultValue="medium">
                <option>low</option>
                <option>medium</option>
                <option>high</option>
              </select>
            </Field>
            <Field label="Response within (days)" error={err("open", "responseDueInDays")}>
              <input name="responseDueInDays" type="number" min={1} max={180} defaultValue={30} />
            </Field>
            <Field label="Related permit (optional)" error={err("open", "relatedPermitId")}>
              <input name="relatedPermitId" />
            </Field>
          </div>
          <Field label="Title" error={err("open", "title")}>
            <input name="title" required />
          </Field>
          <Field label="What was found" error={err("open", "description")}>
            <textarea name="description" rows={3} required />
          </Field>
          <button className="button" name="intent" value="open" disabled={busy}>
            Open finding
          </button>
        </Form>
      ) : null}
    </section>
  );
}
