import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actionForm, int, type ActionResult, type InPlace } from "../../lib/access-body/actions.server";
import { runIntent } from "../../components/route-kit/intents.server";
import {
  ApplicationClock,
  ApplicationFacts,
  ApplicationTimeline,
  InformationRequests,
  PermitCard,
} from "../../components/access-body/application";
import { AccessBodyHead, Field, Notice, StateBadge } from "../../components/access-body/ui";
import { intentFieldMessage } from "../../components/ui/field-errors";
import { requireRole } from "../../session.server";
import { HDAB_DECIDER_ROLES, HDAB_ROLES } from "../../lib/access.server";
import { notFoundPage } from "../../lib/api-errors.server";
import { AppLink } from "../../components/ui/app-link";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.app.id ?? "Application"} · Access body · Health Dataspace Hub` },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireRole(request, context, HDAB_ROLES);
  const app = await context.services.accessBody.getApplication(params.id ?? "", user).catch(notFoundPage);
  return { app, canDecide: user.roles.includes("HDAB_AUTHORITY") };
}

export async function action({
  request,
  context,
  params,
}: ActionFunctionArgs): Promise<InPlace<ActionResult>> {
  const { user, ab, f } = await actionForm(request, context, HDAB_DECIDER_ROLES);
  const applicationId = params.id ?? "";
  const clockEvent = (event: string, extra: object) =>
    ab.clockEvent({ applicationId, event, ...extra, reason: f.reason }, user);
  return runIntent(f.intent ?? "", {
    complete: [
      () => ab.decideCompleteness({ applicationId, complete: true, note: f.note }, user),
      "Found complete: the decision clock runs from the day the application was received.",
    ],
    incomplete: [
      () => ab.decideCompleteness({ applicationId, complete: false, missing: f.missing }, user),
      "Found incomplete: the applicant was asked to complete it within four weeks.",
    ],
    requestInfo: [
      () =>
        ab.requestInformation({ applicationId, questions: f.questions, dueInDays: int(f.dueInDays) }, user),
      "Information requested: the decision clock is paused until the answer.",
    ],
    withdrawInfo: [
      () =>
        ab.withdrawInformationRequest(
          { informationRequestId: f.informationRequestId, action: "withdraw", reason: f.reason },
          user,
        ),
      "Information request withdrawn: the clock runs again.",
    ],
    pause: [() => clockEvent("pause", {}), "Clock paused."],
    resume: [() => clockEvent("resume", {}), "Clock resumed."],
    extend: [() => clockEvent("extend", { months: int(f.months) }), "Decision period extended."],
    grant: [
      () =>
        ab.issuePermit(
          {
            applicationId,
            durationMonths: int(f.durationMonths),
            conditions: f.conditions,
            secureProcessingEnvironment: f.secureProcessingEnvironment,
          },
          user,
        ),
      "Data permit issued; it is in the public register.",
    ],
    refuse: [
      () => ab.refuseApplication({ applicationId, decision: "refuse", reasons: f.reasons }, user),
      "Application refused; the refusal and its reasons are in the public register.",
    ],
    revoke: [
      () => ab.revokePermit({ permitId: f.permitId, reason: f.reason }, user),
      "Permit revoked; the contracts it backed are suspended.",
    ],
  });
}

const DEFAULT_CONDITIONS = [
  "Processing only inside the MedReg secure processing environment (Art. 73)",
  "No attempt to re-identify the natural persons the data relate to (Art. 61(3))",
  "Outputs leave the environment only after the access body's output check",
  "Results are made public within 18 months of the end of processing (Art. 61(4))",
].join("\n");

export default function ApplicationDetail() {
  const { app, canDecide } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const err = (intents: string | string[], name: string) => intentFieldMessage(result, intents, name);
  const busy = useNavigation().state !== "idle";
  const can = (e: string) => canDecide && app.allowedEvents.includes(e);
  const openIr = app.informationRequests.find((i) => i.state === "OPEN");
  const manualPause = app.clockView.state === "PAUSED" && !openIr;
  const canPause = app.clockView.state === "RUNNING" && app.state === "UNDER_ASSESSMENT";
  return (
    <section>
      <p className="muted">
        <AppLink to="/access-body">Work queue</AppLink> ·{" "}
        <AppLink to="/access-body/applications">Applications</AppLink>
      </p>
      <AccessBodyHead
        title={
          <>
            {app.title} <StateBadge state={app.state} />
          </>
        }
      >
        Data access application {app.id} · {app.organisation}
      </AccessBodyHead>
      <Notice result={result} />
      <div className="two-col ab-detail">
        <div>
          <ApplicationFacts app={app} />
          <ApplicationClock app={app} />
          <InformationRequests items={app.informationRequests} />
          {app.permit ? (
            <PermitCard permit={app.permit} withDuration>
              {canDecide && app.permit.state === "ACTIVE" ? (
                <Form method="post" className="ab-form">
                  <input type="hidden" name="intent" value="revoke" />
                  <input type="hidden" name="permitId" value={app.permit.id} />
                  <Field label="Reason for revocation" error={err("revoke", "reason")}>
                    <textarea name="reason" required rows={2} />
                  </Field>
                  <button className="button danger" disabled={busy}>
                    Revoke permit
                  </button>
                </Form>
              ) : null}
            </PermitCard>
          ) : null}
        </div>
        <div>
          {canDecide ? (
            <div className="card ab-card ab-decisions" data-testid="decision-forms">
              <h2>Decisions</h2>
              {app.allowedEvents.length === 0 ? (
                <p className="muted">The application is decided; nothing more to do here.</p>
              ) : null}
              {can("markComplete") ? (
                <Form method="post" className="ab-form">
                  <h3>Completeness</h3>
                  <Field label="Note (optional)" error={err("complete", "note")}>
                    <input name="note" />
                  </Field>
                  <button className="button" name="intent" value="complete" disabled={busy}>
                    Application is complete
                  </button>
                </Form>
              ) : null}
              {can("markIncomplete") ? (
                <Form method="post" className="ab-form">
                  <Field label="Missing items (one per line)" error={err("incomplete", "missing")}>
                    <textarea name="missing" rows={3} required />
                  </Field>
                  <button className="button ghost" name="intent" value="incomplete" disabled={busy}>
                    Ask the applicant to complete it
                  </button>
                </Form>
              ) : null}
              {can("requestInformation") ? (
                <Form method="post" className="ab-form" data-testid="information-request-form">
                  <h3>Ask the applicant for information</h3>
                  <Field label="Questions" error={err("requestInfo", "questions")}>
                    <textarea name="questions" rows={3} required />
                  </Field>
                  <Field label="Answer within (days)" error={err("requestInfo", "dueInDays")}>
                    <input name="dueInDays" type="number" min={1} max={90} defaultValue={30} />
                  </Field>
                  <button className="button" name="intent" value="requestInfo" disabled={busy}>
                    Send information request (pauses the clock)
                  </button>
                </Form>
              ) : null}
              {openIr && app.state === "INFORMATION_REQUESTED" ? (
                <Form method="post" className="ab-form">
                  <h3>Withdraw the open information request</h3>
                  <input type="hidden" name="informationRequestId" value={openIr.id} />
                  <Field label="Reason" error={err("withdrawInfo", "reason")}>
                    <input name="reason" required />
                  </Field>
                  <button className="button ghost" name="intent" value="withdrawInfo" disabled={busy}>
                    Withdraw {openIr.id}
                  </button>
                </Form>
              ) : null}
              {canPause || manualPause || app.clockView.canExtend ? (
                <Form method="post" className="ab-form">
                  <h3>Decision clock</h3>
                  <Field label="Reason" error={err(["extend", "pause", "resume"], "reason")}>
                    <input name="reason" required />
                  </Field>
                  {app.clockView.canExtend ? (
                    <Field
                      label="Extend by (months, once)"
                      error={err(["extend", "pause", "resume"], "months")}
                    >
                      <select name="months" defaultValue="3">
                        <option value="1">1</option>
                        <option value="2">2</option>
                        <option value="3">3</option>
                      </select>
                    </Field>
                  ) : null}
                  <div className="toolbar">
                    {app.clockView.canExtend ? (
                      <button className="button ghost" name="intent" value="extend" disabled={busy}>
                        Extend the decision period
                      </button>
                    ) : null}
                    {canPause ? (
                      <button className="button ghost" name="intent" value="pause" disabled={busy}>
                        Pause the clock
                      </button>
                    ) : null}
                    {manualPause ? (
                      <button className="button ghost" name="intent" value="resume" disabled={busy}>
                        Resume the clock
                      </button>
                    ) : null}
                  </div>
                </Form>
              ) : null}
              {can("grant") ? (
                <Form method="post" className="ab-form" data-testid="grant-form">
                  <h3>Grant: issue a data permit</h3>
                  <p className="muted ab-small">
                    Datasets: {app.datasetTitles.join("; ")} · purpose as applied for.
                  </p>
                  <Field label="Duration (months)" error={err("grant", "durationMonths")}>
                    <input
                      name="durationMonths"
                      type="number"
                      min={1}
                      max={120}
                      defaultValue={app.requestedDurationMonths}
                      required
                    />
                  </Field>
                  <Field label="Conditions (one per line)" error={err("grant", "conditions")}>
                    <textarea name="conditions" rows={4} defaultValue={DEFAULT_CONDITIONS} required />
                  </Field>
                  <Field
                    label="Secure processing environment"
                    error={err("grant", "secureProcessingEnvironment")}
                  >
                    <input
                      name="secureProcessingEnvironment"
                      defaultValue="MedReg secure processing environment"
                      required
                    />
                  </Field>
                  <button className="button" name="intent" value="grant" disabled={busy}>
                    Issue data permit
                  </button>
                </Form>
              ) : null}
              {can("refuse") ? (
                <Form method="post" className="ab-form">
                  <h3>Refuse</h3>
                  <Field label="Reasons (published with the refusal)" error={err("refuse", "reasons")}>
                    <textarea name="reasons" rows={2} required />
                  </Field>
                  <button className="button danger" name="intent" value="refuse" disabled={busy}>
                    Refuse the application
                  </button>
                </Form>
              ) : null}
            </div>
          ) : (
            <p className="notice">Read-only: only the access body's staff decide.</p>
          )}
          <ApplicationTimeline app={app} />
        </div>
      </div>
    </section>
  );
}
