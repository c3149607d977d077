import type { LandingFacts } from "../../lib/landing.server";
import { formatNumber } from "../ui/format";
import { roleLabel } from "../ui/labels";
import { PersonaPicker } from "../ui/PersonaPicker";
import { Stat } from "../ui/Stat";

/**
 * The public front door at `/` for a visitor who is not signed in: what this data space is, who
 * takes part and what it holds (aggregates of public records only), where the public information
 * and the permit register are, and, in a demonstration set-up, the personas to try it as.
 */
export function Landing({ facts }: { facts: LandingFacts }) {
  const { datasets, participants, register, demo } = facts;
  const startAs = (username: string) =>
    demo?.mode === "static"
      ? `/as/${username}/`
      : `/auth/login?${new URLSearchParams({ login_hint: username, returnTo: "/" })}`;
  return (
    <section className="landing" data-testid="landing">
      <h1>A health data space for research, care and public interest</h1>
      <p className="lead">
        Hospitals publish what data they hold, researchers find it and ask for access, and the health data
        access body ({facts.accessBody}) decides under Regulation (EU) 2025/327, the European Health Data
        Space. Data about people leaves only under a data permit, pseudonymised and into a secure processing
        environment; patients see and control their own record.
      </p>
      <p className="landing-actions">
        {demo ? (
          <a className="button" href="#personas">
            Try it as a persona
          </a>
        ) : (
          <a className="button" href="/auth/signin?returnTo=%2F" data-testid="landing-signin">
            Sign in
          </a>
        )}{" "}
        <a className="button ghost" href="/information">
          How secondary use works
        </a>{" "}
        <a className="button ghost" href="/register">
          Register of data permits
        </a>{" "}
        <a className="button ghost" href="/docs/api" data-testid="landing-api-reference">
          API reference
        </a>
      </p>

      <h2>At a glance</h2>
      <div className="stat-grid" data-testid="landing-figures">
        <Stat label="Datasets in the catalogue" value={datasets.total} testId="landing-datasets">
          <span className="muted small">
            {formatNumber(datasets.personalData)} with health data about people
          </span>
        </Stat>
        <Stat label="Participants" value={participants.length} testId="landing-participants">
          <span className="muted small">organisations in the data space</span>
        </Stat>
        <Stat label="Data permits issued" value={register.permits} testId="landing-permits">
          <span className="muted small">{formatNumber(register.activePermits)} in force today</span>
        </Stat>
        <Stat label="Applications and data requests" value={register.applications + register.dataRequests}>
          <span className="muted small">published in the register on receipt</span>
        </Stat>
      </div>

      <div className="landing-columns">
        <div>
          <h2>Who takes part</h2>
          <ul className="landing-list" data-testid="landing-participant-list">
            {participants.map((p) => (
              <li key={p.name}>
                {p.name} <span className="muted">· {roleLabel(p.role)}</span>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2>Who publishes datasets</h2>
          <ul className="landing-list" data-testid="landing-publishers">
            {datasets.byPublisher.map((p) => (
              <li key={p.publisher}>
                {p.publisher}{" "}
                <span className="muted">
                  · {formatNumber(p.datasets)} dataset{p.datasets === 1 ? "" : "s"}
                </span>
              </li>
            ))}
          </ul>
        </div>
      </div>
      <p className="small muted">
        Counts of public records only: the dataset catalogue, the participants and the access body&apos;s
        register. Nothing on this page is about a person.
      </p>

      {demo ? (
        <>
          <h2 id="personas">Try it as a persona</h2>
          <p className="muted">
            {demo.mode === "static"
              ? "This demonstration runs from bundled sample data: pick who you are, and every view shows what that persona sees. Changes are not saved."
              : "This set-up has demonstration accounts on its own development identity provider. The password of each is its username."}
          </p>
          <PersonaPicker personas={demo.personas} hrefOf={startAs} showPassword={demo.mode === "embedded"} />
        </>
      ) : null}
    </section>
  );
}
