import type { ReactNode } from "react";
import type { ApplicationDetail } from "../../types";
import { DaysLeft, StateBadge, Timeline, berlin, civil, type HistoryItem } from "./ui";

/** Pieces of an application's page, shared by the access body's view and the applicant's. */

type InformationRequest = ApplicationDetail["informationRequests"][number];

/** the application's statutory clock (Art. 68(4)): days left or the decision's timeliness, its dates and pauses */
export function ApplicationClock({ app }: { app: ApplicationDetail }) {
  const { clockView: clock } = app;
  const { pauses, extension } = app.clock;
  return (
    <div className={`card ab-card ab-clock${clock.overdue ? " ab-clock-overdue" : ""}`} data-testid="clock">
      <h2>
        Statutory clock <StateBadge state={clock.state} />
      </h2>
      {clock.startDate ? (
        <>
          <div className="ab-clock-big">
            {clock.state === "STOPPED" ? (
              <span>
                Decided on {civil(clock.stoppedDate)} after {clock.elapsedDays} day
                {clock.elapsedDays === 1 ? "" : "s"} —{" "}
                {clock.metDeadline ? (
                  <strong className="ab-ok">within the statutory period</strong>
                ) : (
                  <strong className="ab-late">after the deadline</strong>
                )}
              </span>
            ) : (
              <DaysLeft daysLeft={clock.daysLeft} overdue={clock.overdue} paused={clock.state === "PAUSED"} />
            )}
          </div>
          <dl className="mini-fields">
            <Row k="Complete application received">{civil(clock.startDate)}</Row>
            <Row k="Period (Art. 68(4))">
              {clock.periodMonths} months
              {clock.extensionMonths ? ` + ${clock.extensionMonths} extension` : ""}
            </Row>
            <Row k="End before pauses">{civil(clock.rawEndDate)}</Row>
            <Row k="Days paused">{clock.pausedDays}</Row>
            <dt>Deadline</dt>
            <dd data-testid="deadline">
              {civil(clock.deadlineDate)} <span className="muted">(ends {berlin(clock.deadlineAt)})</span>
            </dd>
          </dl>
          {extension ? (
            <p className="ab-small">
              Extended once by {extension.months} month{extension.months === 1 ? "" : "s"} on{" "}
              {berlin(extension.at)}: {extension.reason}
            </p>
          ) : null}
          {pauses.length ? (
            <ul className="ab-small">
              {pauses.map((p, i) => (
                <li key={i}>
                  Paused {civil(p.fromDate)} → {p.toDate ? civil(p.toDate) : "now"}: {p.reason}
                </li>
              ))}
            </ul>
          ) : null}
          <p className="muted ab-small">
            Calendar days in Europe/Berlin; a deadline on a weekend or German public holiday moves to the next
            working day (Regulation 1182/71 Art. 3).
          </p>
        </>
      ) : (
        <p className="muted">
          The clock starts when the access body finds the application complete; it then runs from the day the
          complete application was received.
        </p>
      )}
    </div>
  );
}

function Row({ k, children }: { k: string; children: ReactNode }) {
  return (
    <>
      <dt>{k}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function ApplicationFacts({ app }: { app: ApplicationDetail }) {
  return (
    <div className="card ab-card">
      <h2>Application</h2>
      <dl className="mini-fields">
        <Row k="Applicant">{app.organisation}</Row>
        <Row k="Purpose">{app.purposeLabel}</Row>
        <Row k="Datasets">{app.datasetTitles.join("; ")}</Row>
        <Row k="Received">{civil(app.receivedDate)}</Row>
        <Row k="Data form">{app.pseudonymised ? "pseudonymised (justification required)" : "anonymised"}</Row>
        <Row k="Requested duration">{app.requestedDurationMonths} months</Row>
        {app.completionDueDate ? <Row k="To be completed by">{civil(app.completionDueDate)}</Row> : null}
        {app.decision ? (
          <Row k="Decision">
            {app.decision.outcome.toLowerCase()} on {civil(app.decision.date)}
            {app.decision.reasons ? `: ${app.decision.reasons}` : ""}
          </Row>
        ) : null}
      </dl>
      <h3>Intended use</h3>
      <p className="ab-pre">{app.summary}</p>
    </div>
  );
}

export function InformationRequests({
  items,
  answerForm,
}: {
  items: InformationRequest[];
  answerForm?: (ir: InformationRequest) => ReactNode;
}) {
  if (!items.length) return null;
  return (
    <div className="card ab-card" data-testid="information-requests">
      <h2>Information requests</h2>
      {items.map((ir) => (
        <div key={ir.id} className="ab-ir" data-testid={`ir-${ir.id}`}>
          <h3>
            {ir.id} <StateBadge state={ir.state} /> <span className="muted ab-small">{ir.kind}</span>
          </h3>
          <p className="muted ab-small">
            Sent {civil(ir.openedDate)} · answer due {civil(ir.dueDate)}
          </p>
          <p className="ab-pre">{ir.questions}</p>
          {ir.answer ? (
            <p className="ab-answer ab-pre">
              <strong>Answer of {civil(ir.answer.date)}:</strong> {ir.answer.text}
            </p>
          ) : null}
          {ir.withdrawal ? <p className="muted">Withdrawn: {ir.withdrawal.reason}</p> : null}
          {ir.state === "OPEN" && answerForm ? answerForm(ir) : null}
        </div>
      ))}
    </div>
  );
}

/** the application's, its information requests' and its permit's history, in time order */
export function mergedHistory(app: ApplicationDetail): HistoryItem[] {
  const all = [
    ...app.history.map((h) => ({ ...h, record: undefined })),
    ...app.informationRequests.flatMap((ir) =>
      ir.history.filter((h) => h.fromState !== null).map((h) => ({ ...h, record: ir.id })),
    ),
    ...(app.permit ? app.permit.history.map((h) => ({ ...h, record: app.permit!.id })) : []),
  ];
  return all.sort((a, b) => a.at.localeCompare(b.at));
}

export const ApplicationTimeline = ({ app }: { app: ApplicationDetail }) => (
  <div className="card ab-card">
    <h2>Timeline</h2>
    <Timeline items={mergedHistory(app)} />
  </div>
);

/** the permit issued for the application; the access body's page adds its duration and the revoke form */
export function PermitCard({
  permit,
  withDuration,
  children,
}: {
  permit: NonNullable<ApplicationDetail["permit"]>;
  withDuration?: boolean;
  children?: ReactNode;
}) {
  return (
    <div className="card ab-card">
      <h2>
        Data permit {permit.id} <StateBadge state={permit.state} />
      </h2>
      <p>
        Valid {civil(permit.validFrom)} to {civil(permit.validUntil)}
        {withDuration ? ` (${permit.durationMonths} months)` : ""} · {permit.secureProcessingEnvironment}
      </p>
      <ul>
        {permit.conditions.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      {permit.revocation ? (
        <p className="notice error">
          Revoked on {civil(permit.revocation.date)}: {permit.revocation.reason}
        </p>
      ) : null}
      {children}
    </div>
  );
}
