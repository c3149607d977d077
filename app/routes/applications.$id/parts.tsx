import type { ReactNode } from "react";
import { ClockPanel, mergedHistory } from "../../components/access-body/application";
import { StateBadge, Timeline, civil } from "../../components/access-body/ui";
import type { ApplicationDetail } from "../../types";

/** Cards of an application shown alike on the applicant's page and the access body's (../access-body.applications.$id). */

export const ApplicationClock = ({ app }: { app: ApplicationDetail }) => (
  <ClockPanel clock={app.clockView} pauses={app.clock.pauses} extension={app.clock.extension ?? null} />
);

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
