import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actionForm, runAction, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import { AccessBodyHead, DaysLeft, Field, Notice, StateBadge, civil } from "../../components/access-body/ui";
import { intentFieldMessage } from "../../components/ui/field-errors";
import { requireRole } from "../../session.server";
import { HDAB_DECIDER_ROLES, HDAB_ROLES } from "../../lib/access.server";
import { pick } from "../../lib/pick";

export const meta: MetaFunction = () => [{ title: "Data requests · Access body · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  const requests = await context.services.accessBody.listDataRequests(user);
  return {
    canDecide: user.roles.includes("HDAB_AUTHORITY"),
    requests: requests
      .map((r) => ({
        ...pick(r, "id title question organisation"),
        purpose: r.purposeLabel,
        datasets: r.datasetTitles,
        ...pick(r, "state receivedDate dueDate daysLeft overdue decision answer"),
      }))
      .sort((a, b) => b.receivedDate.localeCompare(a.receivedDate)),
  };
}

/** "label: value" lines of the answer form */
function table(text: string | undefined) {
  return (text ?? "")
    .split(/\n+/)
    .map((l) => l.split(":"))
    .filter((p) => p.length >= 2 && p[0].trim())
    .map((p) => ({ label: p.slice(0, -1).join(":").trim(), value: Number(p[p.length - 1].trim()) }));
}

export async function action({ request, context }: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const { user, ab, f } = await actionForm(request, context, HDAB_DECIDER_ROLES);
  const decision = f.intent ?? "";
  const body: Record<string, unknown> = { requestId: f.requestId, decision, reasons: f.reasons };
  if (decision === "answer") body.answer = { summary: f.summary, table: table(f.table) };
  return runAction(
    decision,
    () => ab.decideDataRequest(body, user),
    `Data request ${f.requestId}: ${decision === "approve" ? "approved" : decision === "refuse" ? "refused" : "answered"}.`,
  );
}

export default function DataRequests() {
  const { requests, canDecide } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  return (
    <section>
      <AccessBodyHead title="Data requests (Art. 69)">
        Requests for an anonymised statistical answer. Answers contain no count below 10.
      </AccessBodyHead>
      <Notice result={result} />
      <div className="ab-list" data-testid="data-requests">
        {requests.map((r) => (
          <article key={r.id} id={r.id} className={`card ab-card${r.overdue ? " ab-card-overdue" : ""}`}>
            <h2>
              {r.title} <StateBadge state={r.state} />
            </h2>
            <p className="muted ab-small">
              {r.id} · {r.organisation} · {r.purpose} · {r.datasets.join("; ")} · received{" "}
              {civil(r.receivedDate)}
            </p>
            <p className="ab-pre">{r.question}</p>
            {r.state === "SUBMITTED" || r.state === "APPROVED" ? (
              <p>
                Answer due {civil(r.dueDate)} · <DaysLeft daysLeft={r.daysLeft} overdue={r.overdue} />
              </p>
            ) : null}
            {r.answer ? (
              <div className="ab-answer">
                {r.answer.summary}
                <ul className="ab-small">
                  {r.answer.table.map((row) => (
                    <li key={row.label}>
                      {row.label}: {row.value}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            {r.decision?.reasons ? <p className="ab-small">Reasons: {r.decision.reasons}</p> : null}
            {canDecide && r.state === "SUBMITTED" ? (
              <Form method="post" className="ab-form ab-inline-form">
                <input type="hidden" name="requestId" value={r.id} />
                <input name="reasons" placeholder="Reasons (required to refuse)" aria-label="Reasons" />
                <button className="button" name="intent" value="approve" disabled={busy}>
                  Approve
                </button>
                <button className="button danger" name="intent" value="refuse" disabled={busy}>
                  Refuse
                </button>
              </Form>
            ) : null}
            {canDecide && r.state === "APPROVED" ? (
              <Form method="post" className="ab-form">
                <input type="hidden" name="requestId" value={r.id} />
                <Field label="Answer summary" error={intentFieldMessage(result, "answer", "summary")}>
                  <input name="summary" required />
                </Field>
                <Field
                  label="Table (one 'label: count' per line)"
                  error={intentFieldMessage(result, "answer", "table")}
                >
                  <textarea name="table" rows={3} />
                </Field>
                <button className="button" name="intent" value="answer" disabled={busy}>
                  Send anonymised answer
                </button>
              </Form>
            ) : null}
          </article>
        ))}
      </div>
    </section>
  );
}
