import type { ReactNode } from "react";
import { Badge, type Tone } from "../ui/Badge";
import { SubNav } from "../ui/app-link";

/** Shared pieces of the trust and governance views (issue 4). */

export const OPERATOR_NAV = [
  { to: "/operator", label: "Dashboard", end: true },
  { to: "/components", label: "Components" },
  { to: "/tenants", label: "Tenants" },
  { to: "/directory", label: "Participant directory" },
  { to: "/credentials", label: "Credentials" },
  { to: "/policies", label: "Policies" },
  { to: "/audit", label: "Audit" },
  { to: "/trust-center", label: "Trust center" },
];

export function GovNav({
  items = OPERATOR_NAV,
  label = "Operator console",
}: {
  items?: { to: string; label: string; end?: boolean }[];
  label?: string;
}) {
  return <SubNav items={items} className="gov-subnav" aria-label={label} />;
}

const HEALTH_TONE: Record<string, Tone> = { up: "ok", degraded: "warn", down: "danger" };

export function HealthBadge({ health, testId }: { health: string; testId?: string }) {
  return (
    <Badge tone={HEALTH_TONE[health] ?? "neutral"} testId={testId}>
      {health}
    </Badge>
  );
}

/** the outcome of a form: ok (green) or error (red), read out by screen readers */
export function Outcome({ result }: { result: { ok: boolean; message: string } | null | undefined }) {
  if (!result) return null;
  return (
    <p role="status" className={`notice ${result.ok ? "ok" : "error"}`} data-testid="outcome">
      {result.message}
    </p>
  );
}

export function PageHead({
  title,
  lead,
  children,
}: {
  title: string;
  lead?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div className="page-head">
      <div>
        <h1>{title}</h1>
        {lead ? <p className="lead">{lead}</p> : null}
      </div>
      {children}
    </div>
  );
}
