/**
 * The overview's signals from the access-body module, when it is present: looked up on the
 * service container at request time (duck-typed: the module is optional) and called
 * defensively, each call bounded by a time-out.
 */
import type { Role } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { UNDECIDED, UNDECIDED_APPLICATION_STATES } from "../access-body";
import { withDeadline } from "../graph";
import { DAY, isoDay, signal, type OverviewSignal, type Tone } from "./model";

/** what the overview reads from the access-body module, if it is there (duck-typed: the module is optional) */
export interface AccessBodyPort {
  workQueue(): Promise<{
    items: {
      kind: string;
      state: string;
      waitingOn: string;
      overdue: boolean;
      organisation?: string | null;
    }[];
  }>;
  listPermits(
    user: SessionUser,
    filter?: { state?: string },
  ): Promise<{ state?: string; validUntil?: string }[]>;
  listInformationRequests(user: SessionUser, filter?: { state?: string }): Promise<{ state?: string }[]>;
  listApplications(user: SessionUser, filter?: { state?: string }): Promise<{ state?: string }[]>;
  /** runs the module's first-use seeding and expiry sweep and answers its records' version after it */
  readyVersion(): Promise<string>;
}

export function accessBodyFrom(services: unknown): Partial<AccessBodyPort> | undefined {
  const candidate = (services as { accessBody?: unknown } | null)?.accessBody;
  return candidate && typeof candidate === "object" ? (candidate as Partial<AccessBodyPort>) : undefined;
}

export const bounded = <T>(p: Promise<T>, ms: number) =>
  withDeadline(p, ms, undefined, () => new Error(`no answer within ${ms} ms`));

/** the access body's cards, each counting the list it links to with the same call for the same caller */
export async function accessBodySignals(
  persona: Role,
  user: SessionUser,
  port: Partial<AccessBodyPort>,
  opts: { now: () => Date; timeoutMs: number },
): Promise<OverviewSignal[]> {
  const { now } = opts;
  const ms = opts.timeoutMs;
  const out: OverviewSignal[] = [];
  const add = (id: string, label: string, value: number, tone: Tone, href: string, detail?: string) =>
    out.push(signal("access-body", id, label, value, tone, href, detail));
  const soon = isoDay(new Date(now().getTime() + 90 * DAY));
  const expiring = (permits: { state?: string; validUntil?: string }[]) =>
    permits.filter((p) => p.state === "ACTIVE" && typeof p.validUntil === "string" && p.validUntil <= soon)
      .length;
  const overseer = persona === "HDAB_AUTHORITY" || persona === "CONNECTOR_ADMIN";
  if (overseer && port.workQueue) {
    const q = await bounded(port.workQueue(), ms);
    const ours = q.items.filter((i) => i.waitingOn === "access body");
    add(
      "ab-open-tasks",
      "Open cases in the work queue",
      q.items.length,
      "warn",
      "/access-body",
      `${ours.length} waiting on the access body, ${q.items.filter((i) => i.overdue).length} overdue`,
    );
  }
  if (overseer && port.listApplications) {
    const apps = await bounded(port.listApplications(user), ms);
    add(
      "pending-approvals",
      "Applications awaiting a decision",
      apps.filter((a) => UNDECIDED_APPLICATION_STATES.includes(a.state ?? "")).length,
      "warn",
      `/access-body/applications?state=${UNDECIDED}`,
    );
  }
  if (overseer && port.listPermits) {
    const permits = await bounded(port.listPermits(user, { state: "ACTIVE" }), ms);
    add(
      "permits-granted",
      "Data permits in force",
      permits.length,
      "ok",
      "/access-body/permits?state=ACTIVE",
      `${expiring(permits)} expiring within 90 days`,
    );
  }
  if (persona === "DATA_USER" && port.listApplications) {
    const apps = await bounded(port.listApplications(user), ms);
    add(
      "ab-applications",
      "Your data access applications",
      apps.length,
      "info",
      "/applications#applications",
      `${apps.filter((a) => UNDECIDED_APPLICATION_STATES.includes(a.state ?? "")).length} awaiting a decision`,
    );
  }
  if (persona === "DATA_USER" && port.listInformationRequests) {
    const open = await bounded(port.listInformationRequests(user, { state: "OPEN" }), ms);
    add(
      "ab-information-requests",
      "Information requests to answer",
      open.length,
      "warn",
      "/applications#information-requests",
    );
  }
  if (persona === "DATA_USER" && port.listPermits) {
    const permits = await bounded(port.listPermits(user), ms);
    add(
      "ab-permits",
      "Your data permits",
      permits.length,
      "ok",
      "/applications#permits",
      `${expiring(permits)} expiring within 90 days`,
    );
  }
  return out;
}
