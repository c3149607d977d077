import { Form, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { Badge, type Tone } from "../ui/Badge";
import { PropertyTable } from "../ui/PropertyTable";
import { Stat } from "../ui/Stat";
import { stateLabel, purposeLabel } from "../ui/labels";
import { formatDate, formatDateTime, humanize } from "../ui/format";
import type { ConsentResult, PatientView, Programme } from "../../lib/patient/profile.server";
import type { TimelineEvent, TimelineItem } from "../../lib/patient/timeline";
import { AppLink } from "../ui/app-link";
import { DataTable, num } from "../route-kit/DataTable";

const COUNTRY: Record<string, string> = { DE: "Germany", NL: "Netherlands", FR: "France", BE: "Belgium" };
const KIND_LABEL: Record<TimelineItem["kind"], string> = {
  condition: "Diagnosis",
  observation: "Measurement",
  medication: "Prescription",
};
const INTERPRETATION: Record<string, { text: string; tone: Tone }> = {
  H: { text: "high", tone: "warn" },
  L: { text: "low", tone: "warn" },
  N: { text: "normal", tone: "ok" },
  HH: { text: "critically high", tone: "danger" },
  LL: { text: "critically low", tone: "danger" },
};

function PatientHeader({ view }: { view: PatientView }) {
  const p = view.patient;
  return (
    <header className="card patient-header" data-testid="patient-header">
      <div className="avatar" aria-hidden>
        {(p.name ?? "?")
          .split(/\s+/)
          .map((w) => w[0])
          .slice(0, 2)
          .join("")}
      </div>
      <div>
        <h1 data-testid="patient-name">{p.name ?? p.id}</h1>
        <p className="patient-facts">
          <span data-testid="patient-gender">{p.gender ? humanize(p.gender) : "Gender not recorded"}</span>
          {view.age !== null ? <span data-testid="patient-age">{view.age} years</span> : null}
          {p.birthDate ? <span>born {formatDate(p.birthDate)}</span> : null}
          {p.city || p.country ? (
            <span data-testid="patient-place">
              {[p.city, p.country ? (COUNTRY[p.country] ?? p.country) : null].filter(Boolean).join(", ")}
            </span>
          ) : null}
        </p>
        <p className="muted small">
          FHIR Patient <code data-testid="patient-fhir-id">{p.resourceId ?? p.id}</code> · record{" "}
          <code>{p.id}</code>
        </p>
      </div>
    </header>
  );
}

/** a card of current items (conditions, medication), each with its detail and the day it began */
function ItemsCard({
  title,
  items,
  testId,
  detail,
}: {
  title: string;
  items: TimelineItem[];
  testId: string;
  detail: (item: TimelineItem) => string | null;
}) {
  return (
    <div className="card">
      <h3>{title}</h3>
      {items.length ? (
        <ul className="plain item-list" data-testid={testId}>
          {items.map((x) => (
            <li key={x.id}>
              <strong>{x.title}</strong>
              <span className="muted small">
                {detail(x)}
                {x.date ? ` · since ${formatDate(x.date)}` : null}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
    </div>
  );
}

function Insights({ view }: { view: PatientView }) {
  const c = view.counts;
  return (
    <section aria-labelledby="insights-title" data-testid="patient-insights">
      <h2 id="insights-title">Insights</h2>
      <div className="stat-grid compact">
        {(
          [
            ["Encounters", c.encounters],
            ["Diagnoses", c.conditions],
            ["Measurements", c.observations],
            ["Prescriptions", c.medications],
          ] as const
        ).map(([label, n]) => (
          <Stat key={label} label={label} value={n} testId={`patient-count-${label.toLowerCase()}`} />
        ))}
        <Stat label="Care period">
          <span className="stat-range">
            {view.firstEncounter
              ? `${formatDate(view.firstEncounter)} – ${formatDate(view.lastEncounter)}`
              : "no encounters"}
          </span>
        </Stat>
      </div>
      <div className="insight-cols">
        <ItemsCard
          title="Active conditions"
          items={view.activeConditions}
          testId="patient-active-conditions"
          detail={(x) => (x.code ? `SNOMED CT ${x.code}` : null)}
        />
        <ItemsCard
          title="Current medication"
          items={view.currentMedications}
          testId="patient-current-medications"
          detail={(x) => x.summary}
        />
      </div>
      <div className="card">
        <h3>Latest measurements</h3>
        {view.latestObservations.length ? (
          <DataTable
            data-testid="patient-latest-observations"
            columns={["Measurement", num("Value"), "Reference range", "Assessment", "Date"]}
          >
            {view.latestObservations.map((o) => {
              const i = o.interpretation ? INTERPRETATION[o.interpretation] : undefined;
              return (
                <tr key={o.id}>
                  <td>
                    {o.title}
                    {o.code ? <span className="muted small"> · LOINC {o.code}</span> : null}
                  </td>
                  <td className="num nowrap">
                    <strong>{o.value ?? "—"}</strong>
                  </td>
                  <td className="muted nowrap">
                    {o.low !== null && o.high !== null ? `${o.low}–${o.high}` : "—"}
                  </td>
                  <td>{i ? <Badge tone={i.tone}>{i.text}</Badge> : (o.interpretation ?? "—")}</td>
                  <td className="nowrap">{formatDate(o.date)}</td>
                </tr>
              );
            })}
          </DataTable>
        ) : (
          <p className="muted">No measurements recorded.</p>
        )}
      </div>
    </section>
  );
}

function TimelineEntry({ event }: { event: TimelineEvent }) {
  return (
    <li
      className={`tl-event tl-${event.kind}`}
      data-testid="timeline-event"
      data-kind={event.kind}
      data-date={event.date ?? ""}
    >
      <span className="tl-marker" aria-hidden />
      <div className="tl-date">
        <time dateTime={event.date ?? undefined}>{event.date ? formatDate(event.date) : "undated"}</time>
        {event.end && event.end.slice(0, 10) !== event.date?.slice(0, 10) ? (
          <span className="muted small">to {formatDate(event.end)}</span>
        ) : null}
      </div>
      <div className="tl-body card">
        <h3>
          {event.title}
          {event.kind !== "encounter" ? (
            <span className="muted small"> · {KIND_LABEL[event.kind]}</span>
          ) : null}
        </h3>
        {event.subtitle ? <p className="muted small">{event.subtitle}</p> : null}
        {event.kind === "encounter" && event.items.length ? (
          <ul className="plain tl-items">
            {event.items.map((item) => (
              <li key={item.id} className={`tl-item tl-item-${item.kind}`}>
                <span className="tl-kind">{KIND_LABEL[item.kind]}</span>
                <span>
                  <strong>{item.title}</strong>
                  {item.summary ? <span className="muted"> · {item.summary}</span> : null}
                  {item.status ? (
                    <span className="muted small"> · {INTERPRETATION[item.status]?.text ?? item.status}</span>
                  ) : null}
                  {item.date && item.date.slice(0, 10) !== event.date?.slice(0, 10) ? (
                    <span className="muted small"> · {formatDate(item.date)}</span>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
        ) : null}
        <details className="tl-details">
          <summary>Record details</summary>
          {event.raw ? <PropertyTable properties={event.raw} omit={["patientId", "holder"]} rawKeys /> : null}
          {event.items.map((item) => (
            <PropertyTable
              key={item.id}
              properties={item.raw}
              omit={["patientId", "encounterId"]}
              caption={`${KIND_LABEL[item.kind]}: ${item.title}`}
              rawKeys
            />
          ))}
        </details>
      </div>
    </li>
  );
}

function Timeline({ events }: { events: TimelineEvent[] }) {
  return (
    <section aria-labelledby="timeline-title" data-testid="patient-timeline">
      <h2 id="timeline-title">Timeline</h2>
      {events.length ? (
        <ol className="timeline">
          {events.map((e) => (
            <TimelineEntry key={`${e.kind}-${e.id}`} event={e} />
          ))}
        </ol>
      ) : (
        <p className="muted">No encounters recorded.</p>
      )}
    </section>
  );
}

/** a permit status's badge; one without text reads "Permit <state>" */
const PERMIT: Record<string, { tone: Tone; text?: string }> = {
  GRANTED: { tone: "ok", text: "Permit in force" },
  PENDING: { tone: "info", text: "Awaiting permit" },
  REVOKED: { tone: "danger", text: "Permit revoked" },
  REJECTED: { tone: "danger" },
  EXPIRED: { tone: "neutral", text: "Permit expired" },
};

/**
 * a granted permit past its last day of validity has expired, whatever the marketplace still says;
 * `today` (YYYY-MM-DD) comes from the loader, so the server's render, the browser's hydration and a
 * document kept by its data (server/http/render-cache.ts) agree on the day
 */
export function programmeStatus(
  status: string | null | undefined,
  validUntil: string | null | undefined,
  today: string,
) {
  if (status === "GRANTED" && validUntil && validUntil < today) return "EXPIRED";
  return status ?? null;
}

function Fact({ term, testId, children }: { term: string; testId?: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/** permits under which no new consent makes sense (an existing consent can still be revoked) */
const CLOSED_PERMITS = new Set(["REVOKED", "REJECTED", "EXPIRED", "DENIED"]);

function ProgrammeCard({
  p,
  canConsent,
  isSelf,
  today,
  result,
}: {
  p: Programme;
  canConsent: boolean;
  isSelf: boolean;
  today: string;
  result?: ConsentResult;
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("studyId") === p.studyId;
  const active = p.consent?.status === "active";
  const title = p.dataset?.title ?? humanize(p.title);
  const status = programmeStatus(p.status, p.validUntil, today);
  // why the programme takes no new consent, if it does not
  const closed =
    active || !status
      ? null
      : status === "PENDING"
        ? "The access body has not yet issued a data permit; consent can be given once it has."
        : !CLOSED_PERMITS.has(status)
          ? null
          : `The data permit ${status === "EXPIRED" ? "has expired" : `was ${stateLabel(status).toLowerCase()}`}, so the programme does not take new consent.`;
  return (
    <li
      className="card programme"
      data-testid="programme"
      data-study-id={p.studyId}
      data-consent={p.consent?.status ?? "none"}
    >
      <div className="programme-head">
        <div>
          <h3>{title}</h3>
          <p className="muted small">
            {p.permitNumber ? `Data permit ${p.permitNumber}` : p.studyId}
            {p.validUntil ? ` · valid until ${formatDate(p.validUntil)}` : ""}
          </p>
        </div>
        {status ? (
          <Badge tone={PERMIT[status]?.tone ?? "neutral"} testId="programme-status">
            {PERMIT[status]?.text ?? `Permit ${stateLabel(status).toLowerCase()}`}
          </Badge>
        ) : null}
      </div>
      <dl className="mini-fields">
        <Fact term="Purpose">{purposeLabel(p.purpose)}</Fact>
        <Fact term="Sponsor">{p.sponsorName ?? "not stated"}</Fact>
        {p.legalBasis ? <Fact term="Legal basis">{p.legalBasis}</Fact> : null}
        <Fact term={isSelf ? "Your consent" : "Patient's consent"} testId="programme-consent">
          {active ? (
            <Badge tone="ok">
              given
              {p.consent && "grantedAt" in p.consent && p.consent.grantedAt
                ? ` ${formatDateTime(p.consent.grantedAt)}`
                : ""}
            </Badge>
          ) : p.consent?.status === "revoked" ? (
            <Badge tone="neutral">withdrawn</Badge>
          ) : (
            <Badge tone="neutral">not given</Badge>
          )}
        </Fact>
      </dl>
      {p.includesMe ? (
        <p className="small muted">
          {isSelf ? "Your record is" : "This record is"} part of the dataset this programme uses.
        </p>
      ) : null}
      {canConsent ? (
        <Form method="post" className="actions" preventScrollReset>
          <input type="hidden" name="studyId" value={p.studyId} />
          <input type="hidden" name="title" value={title} />
          {closed ? (
            <p className="small muted" data-testid="consent-closed">
              {closed}
            </p>
          ) : (
            <button
              type="submit"
              name="intent"
              value={active ? "revoke" : "grant"}
              className={active ? "button danger" : "button"}
              disabled={busy}
              data-testid={active ? "consent-revoke" : "consent-grant"}
            >
              {active ? (busy ? "Revoking…" : "Revoke consent") : busy ? "Granting…" : "Grant consent"}
            </button>
          )}
        </Form>
      ) : null}
      {result ? (
        <p
          className={`notice ${result.ok ? "ok" : "error"}`}
          role={result.ok ? "status" : "alert"}
          data-testid="consent-result"
          data-consent-id={result.consentId}
        >
          {result.message}
        </p>
      ) : null}
    </li>
  );
}

function Research({ view, result }: { view: PatientView; result?: ConsentResult }) {
  return (
    <section aria-labelledby="research-title" data-testid="patient-research">
      <h2 id="research-title">Research consent</h2>
      <p className="muted">
        Approved secondary-use programmes (data permits of the health data access body).{" "}
        {view.canConsent
          ? "You decide whether each may use your data; you can change your mind at any time."
          : view.isSelf
            ? ""
            : "Only the patient can give or withdraw consent."}
      </p>
      {view.programmes.length ? (
        <ul className="plain programme-list">
          {view.programmes.map((p) => (
            <ProgrammeCard
              key={p.studyId}
              p={p}
              canConsent={view.canConsent}
              isSelf={view.isSelf}
              today={view.today}
              result={result?.studyId === p.studyId ? result : undefined}
            />
          ))}
        </ul>
      ) : (
        <p className="muted">No research programmes.</p>
      )}
    </section>
  );
}

/** The patient profile: header, insights, timeline and research consent (shared by /patients/:id and /my-record). */
export function PatientProfileView({
  view,
  result,
  back,
}: {
  view: PatientView;
  result?: ConsentResult;
  back?: { to: string; label: string };
}) {
  return (
    <div className="patient-profile" data-testid="patient-profile">
      {back ? (
        <p className="breadcrumb">
          <AppLink to={back.to} data-testid="patient-back">
            ← {back.label}
          </AppLink>
        </p>
      ) : null}
      <PatientHeader view={view} />
      {result && !view.programmes.some((p) => p.studyId === result.studyId) ? (
        <p className={`notice ${result.ok ? "ok" : "error"}`} role="alert">
          {result.message}
        </p>
      ) : null}
      <div className="profile-grid">
        <div className="profile-main">
          <Insights view={view} />
          <Timeline events={view.timeline} />
        </div>
        <div className="profile-side">
          <Research view={view} result={result} />
        </div>
      </div>
    </div>
  );
}
