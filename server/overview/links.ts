/**
 * Where each overview signal leads: the view where its records are listed and worked on. The home
 * page links a signal only when the user may open that view (the navigation it was handed says so).
 */
import type { Role } from "../auth/personas";
import type { OverviewSignal } from "./model";

const ACCESS_BODY: readonly Role[] = ["HDAB_AUTHORITY", "CONNECTOR_ADMIN"];

export function signalHref(id: string, persona: Role): string | undefined {
  const accessBody = ACCESS_BODY.includes(persona);
  switch (id) {
    case "ab-open-tasks":
      return "/access-body";
    case "ab-applications":
    case "ab-information-requests":
      return "/applications";
    case "ab-expiring-permits":
    case "permits-granted":
      return accessBody ? "/access-body/permits" : "/register";
    case "pending-approvals":
      return accessBody
        ? "/access-body/applications"
        : persona === "DATA_USER"
          ? "/applications"
          : "/register";
    case "expiring-permits":
      return "/register";
    case "contracts-active":
    case "open-tasks":
      return "/negotiations";
    case "pseudonymised-persons":
      return "/trust-center";
    case "programmes":
      return "/my-record";
    case "participants":
      return "/onboarding";
    default:
      return undefined;
  }
}

/** each signal with its link, unless it has one already */
export function withLinks(signals: OverviewSignal[], persona: Role): OverviewSignal[] {
  return signals.map((s) => {
    const href = s.href ?? signalHref(s.id, persona);
    return href ? { ...s, href } : s;
  });
}
