import type { ReactNode } from "react";
import type { ApplicationDetail } from "../../types";
import type { ActionResult } from "../../lib/access-body/actions.server";
import { Badge, type Tone } from "../ui/Badge";
import { Invalid } from "../ui/field-errors";
import { actorLabel, stateLabel } from "../ui/labels";
import { SubNav } from "../ui/app-link";

/**
 * Shared pieces of the access body's views. Dates are civil dates of Europe/Berlin ("YYYY-MM-DD") or
 * instants shown in Berlin time with the zone named, so server and client render the same text and no
 * time is read in the wrong zone.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2026-04-15" → "15 Apr 2026" */
export function civil(date: string | null | undefined): string {
  if (!date) return "—";
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  return m ? `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]} ${m[1]}` : date;
}

const BERLIN = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Europe/Berlin",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** an instant in Berlin wall time, its zone named: "15 Apr 2026, 14:00 Berlin time" */
export function berlin(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${BERLIN.format(d)} Berlin time`;
}

const ACCESS_BODY_NAV = [
  { to: "/access-body", label: "Work queue", end: true },
  { to: "/access-body/applications", label: "Applications" },
  { to: "/access-body/requests", label: "Data requests" },
  { to: "/access-body/information-requests", label: "Information requests" },
  { to: "/access-body/permits", label: "Permits" },
  { to: "/access-body/findings", label: "Findings" },
  { to: "/access-body/results", label: "Results" },
  { to: "/access-body/report", label: "Activity report" },
  { to: "/access-body/compliance", label: "Compliance" },
];

/** The top of an access body page: its heading, its lead (`children`) and, unless `nav` is false, the sub-navigation. */
export function AccessBodyHead({
  title,
  nav = true,
  children,
}: {
  title: ReactNode;
  nav?: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <h1>{title}</h1>
      <p className="lead">{children}</p>
      {nav ? <SubNav items={ACCESS_BODY_NAV} className="ab-subnav" aria-label="Access body" /> : null}
    </>
  );
}

const TONES: Record<string, Tone> = {
  RECEIVED: "info",
  INCOMPLETE: "warn",
  UNDER_ASSESSMENT: "info",
  INFORMATION_REQUESTED: "warn",
  GRANTED: "ok",
  REFUSED: "danger",
  WITHDRAWN: "neutral",
  ACTIVE: "ok",
  REVOKED: "danger",
  EXPIRED: "neutral",
  SUBMITTED: "info",
  APPROVED: "ok",
  ANSWERED: "ok",
  OPEN: "warn",
  RESPONDED: "info",
  CLOSED: "neutral",
  DECLARED: "info",
  RELEASED: "ok",
  REJECTED: "danger",
  PUBLISHED: "ok",
  RUNNING: "info",
  PAUSED: "warn",
  STOPPED: "neutral",
  NOT_STARTED: "neutral",
};

export function StateBadge({ state }: { state: string }) {
  return (
    <Badge tone={TONES[state] ?? "neutral"} testId="state">
      {stateLabel(state)}
    </Badge>
  );
}

/** days left on a clock: "12 days left", "due today", "3 days overdue" (red), "paused" */
export function DaysLeft({
  daysLeft,
  overdue,
  paused,
}: {
  daysLeft: number | null;
  overdue: boolean;
  paused?: boolean;
}) {
  if (daysLeft === null) return <span className="muted">—</span>;
  const text = overdue
    ? `${-daysLeft} day${daysLeft === -1 ? "" : "s"} overdue`
    : daysLeft === 0
      ? "due today"
      : `${daysLeft} day${daysLeft === 1 ? "" : "s"} left`;
  return (
    <span
      className={`ab-days${overdue ? " ab-overdue" : daysLeft <= 14 ? " ab-soon" : ""}`}
      data-testid="days-left"
    >
      {text}
      {paused ? <span className="ab-paused"> · clock paused</span> : null}
    </span>
  );
}

/** one entry of a record's history, and which record it is of when the timeline merges several */
export type HistoryItem = Pick<
  ApplicationDetail["history"][number],
  "at" | "actor" | "event" | "fromState" | "toState" | "note"
> & { record?: string };

const EVENT_LABELS: Record<string, string> = {
  submit: "Submitted",
  markComplete: "Found complete — clock started",
  markIncomplete: "Found incomplete",
  supplement: "Completed by the applicant",
  requestInformation: "Information requested — clock paused",
  informationProvided: "Information provided — clock resumed",
  informationWithdrawn: "Information request withdrawn — clock resumed",
  grant: "Granted",
  refuse: "Refused",
  withdraw: "Withdrawn",
  issue: "Permit issued",
  revoke: "Revoked",
  expire: "Expired",
  open: "Opened",
  answer: "Answered",
  approve: "Approved",
  respond: "Responded",
  close: "Closed",
  declare: "Declared",
  release: "Released after output check",
  reject: "Rejected at output check",
  resubmit: "Resubmitted",
  publish: "Published",
  "clock.pause": "Clock paused",
  "clock.resume": "Clock resumed",
  "clock.extend": "Decision period extended",
};

export function Timeline({ items }: { items: HistoryItem[] }) {
  return (
    <ol className="ab-timeline" data-testid="timeline">
      {items.map((h, i) => (
        <li key={`${h.at}-${i}`}>
          <span className="ab-when">{berlin(h.at)}</span>
          <span className="ab-what">
            <strong>{EVENT_LABELS[h.event] ?? h.event}</strong>
            {h.record ? <span className="muted"> · {h.record}</span> : null}
            {h.fromState && h.fromState !== h.toState ? (
              <span className="muted">
                {" "}
                · {stateLabel(h.fromState)} → {stateLabel(h.toState)}
              </span>
            ) : null}
            <span className="muted"> · {actorLabel(h.actor)}</span>
            {h.note ? <span className="ab-note">{h.note}</span> : null}
          </span>
        </li>
      ))}
    </ol>
  );
}

/**
 * Horizontal bars as HTML rows (label, bar, value), so they follow the width of their card and their
 * text keeps its size: a label too long for its column is cut with an ellipsis and carries its whole
 * text as a title. A marker (e.g. the days allowed) is a red line across the bar.
 */
export function Bars({
  rows,
  unit = "",
  colour = "#1f5fbf",
  label,
  width = 620,
  labelWidth = 250,
  empty = "Nothing to show for this period.",
}: {
  empty?: string;
  rows: { label: string; value: number; marker?: number }[];
  unit?: string;
  colour?: string;
  label: string;
  /** the widest the chart grows, in pixels */
  width?: number;
  /** the widest the label column grows, in pixels */
  labelWidth?: number;
}) {
  const max = Math.max(1, ...rows.map((r) => Math.max(r.value, r.marker ?? 0)));
  const pct = (v: number) => `${Math.min(100, (v / max) * 100).toFixed(1)}%`;
  if (!rows.length) return <p className="muted ab-empty">{empty}</p>;
  return (
    <figure className="ab-figure">
      <ul className="ab-bars" aria-hidden="true" style={{ maxWidth: width }}>
        {rows.map((r, i) => (
          <li
            key={`${r.label}-${i}`}
            style={{ gridTemplateColumns: `minmax(0, ${labelWidth}px) minmax(5rem, 1fr) auto` }}
          >
            <span className="ab-bar-label" title={r.label}>
              {r.label}
            </span>
            <span className="ab-bar-track">
              <span
                className="ab-bar-fill"
                style={{
                  width: r.value > 0 ? pct(r.value) : 0,
                  minWidth: r.value > 0 ? 2 : 0,
                  background: colour,
                }}
              />
              {r.marker !== undefined ? (
                <span className="ab-bar-marker" style={{ left: pct(r.marker) }} />
              ) : null}
            </span>
            <span className="ab-bar-value">
              {r.value}
              {unit}
            </span>
          </li>
        ))}
      </ul>
      {/* the chart's text alternative: the same figures as a table, for screen readers */}
      {/* (in a box: a table would not shrink to the one pixel of .visually-hidden and widen the page) */}
      <div className="visually-hidden">
        <table>
          <caption>{label}</caption>
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${r.label}-${i}`}>
                <th scope="row">{r.label}</th>
                <td>
                  {r.value}
                  {unit}
                  {r.marker !== undefined ? ` (allowed ${r.marker}${unit})` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

export function Notice({ result }: { result?: ActionResult }) {
  if (!result) return null;
  if (result.error) {
    return (
      <p className="notice error" role="alert">
        {result.error}
        {result.currentState ? (
          <>
            {" "}
            (state {result.currentState}; possible next:{" "}
            {result.allowedNextStates?.length ? result.allowedNextStates.join(", ") : "none"})
          </>
        ) : null}
      </p>
    );
  }
  return result.ok ? (
    <p className="notice ok" role="status">
      {result.ok}
    </p>
  ) : null;
}

/** a labelled control; `error` (a field error of the form's action) marks it invalid with the message */
export function Field({
  label,
  children,
  hint,
  error,
}: {
  label: string;
  children: ReactNode;
  hint?: string;
  error?: string;
}) {
  return (
    <label>
      {label}
      <Invalid message={error}>{children}</Invalid>
      {hint ? <span className="muted ab-hint">{hint}</span> : null}
    </label>
  );
}
