import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actionForm, runAction, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import {
  ApplicationClock,
  ApplicationFacts,
  ApplicationTimeline,
  InformationRequests,
  PermitCard,
} from "../../components/access-body/application";
import { Field, Notice, StateBadge } from "../../components/access-body/ui";
import { intentFieldMessage } from "../../components/ui/field-errors";
import { requireRole } from "../../session.server";
import { APPLICANT_ROLES } from "../../lib/access.server";
import { notFoundPage } from "../../lib/api-errors.server";
import { AppLink } from "../../components/ui/app-link";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.app.title ?? "Application"} · My applications · Health Dataspace Hub` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, APPLICANT_ROLES);
  return { app: await context.services.accessBody.getApplication(params.id ?? "", user).catch(notFoundPage) };
}

export async function action({
  request,
  context,
  params,
}: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const { user, ab, f } = await actionForm(request, context, APPLICANT_ROLES);
  if (f.intent === "answer") {
    return runAction(
      "answer",
      () =>
        ab.answerInformationRequest({ informationRequestId: f.informationRequestId, answer: f.answer }, user),
      "Answer sent; the access body's clock runs again.",
    );
  }
  if (f.intent === "withdraw") {
    return runAction(
      "withdraw",
      () => ab.withdrawApplication({ applicationId: params.id, action: "withdraw", reason: f.reason }, user),
      "Application withdrawn.",
    );
  }
  return { error: "Unknown action" };
}

export default function MyApplication() {
  const { app } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state !== "idle";
  return (
    <section>
      <p className="muted">
        <AppLink to="/applications">My applications</AppLink>
      </p>
      <h1>
        {app.title} <StateBadge state={app.state} />
      </h1>
      <p className="lead">Data access application {app.id}</p>
      <Notice result={result} />
      <div className="two-col ab-detail">
        <div>
          <ApplicationFacts app={app} />
          <InformationRequests
            items={app.informationRequests}
            answerForm={(ir) => (
              <Form method="post" className="ab-form" data-testid={`answer-${ir.id}`}>
                <input type="hidden" name="informationRequestId" value={ir.id} />
                <Field label="Your answer" error={intentFieldMessage(result, "answer", "answer")}>
                  <textarea name="answer" rows={3} required />
                </Field>
                <button className="button" name="intent" value="answer" disabled={busy}>
                  Send answer
                </button>
              </Form>
            )}
          />
          {app.permit ? <PermitCard permit={app.permit} /> : null}
          {app.allowedEvents.includes("withdraw") ? (
            <Form method="post" className="card ab-card ab-form">
              <h2>Withdraw</h2>
              <Field label="Reason" error={intentFieldMessage(result, "withdraw", "reason")}>
                <input name="reason" required />
              </Field>
              <button className="button ghost" name="intent" value="withdraw" disabled={busy}>
                Withdraw the application
              </button>
            </Form>
          ) : null}
        </div>
        <div>
          <ApplicationClock app={app} />
          <ApplicationTimeline app={app} />
        </div>
      </div>
    </section>
  );
}
