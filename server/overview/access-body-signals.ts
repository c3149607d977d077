/**
 * The overview's signals from the access-body module, when it is present: looked up on the
 * service container at request time (duck-typed: the module is optional) and called
 * defensively, each call bounded by a time-out.
 */
import type { Role } from "../auth/personas";
import type { SessionUser } from "../auth/user";
import { DAY, isoDay, type OverviewSignal, type Tone } from "./model";

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

export async function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function accessBodySignals(
  persona: Role,
  user: SessionUser,
  port: Partial<AccessBodyPort>,
  opts: { now: () => Date; timeoutMs: number },
): Promise<OverviewSignal[]> {
  const { now } = opts;
  const ms = opts.timeoutMs;
  const s = (id: string, label: string, value: number, tone: Tone, detail?: string): OverviewSignal => ({
    id,
    label,
    value,
    tone,
    source: "access-body",
    ...(detail ? { detail } : {}),
  });
  const out: OverviewSignal[] = [];
  if ((persona === "HDAB_AUTHORITY" || persona === "CONNECTOR_ADMIN") && port.workQueue) {
    const q = await bounded(port.workQueue(), ms);
    const mine = q.items.filter((i) => i.waitingOn === "access body");
    out.push(
      s(
        "ab-open-tasks",
        "Open access-body tasks",
        mine.length,
        "warn",
        `${mine.filter((i) => i.overdue).length} overdue`,
      ),
    );
  }
  if (persona === "DATA_USER" && port.listInformationRequests) {
    const open = await bounded(port.listInformationRequests(user, { state: "OPEN" }), ms);
    out.push(s("ab-information-requests", "Information requests to answer", open.length, "warn"));
  }
  if (persona === "DATA_USER" && port.listApplications) {
    const apps = await bounded(port.listApplications(user), ms);
    out.push(
      s(
        "ab-applications",
        "Applications in progress",
        apps.filter((a) =>
          ["RECEIVED", "INCOMPLETE", "UNDER_ASSESSMENT", "INFORMATION_REQUESTED"].includes(a.state ?? ""),
        ).length,
        "info",
      ),
    );
  }
  if ((persona === "DATA_USER" || persona === "HDAB_AUTHORITY") && port.listPermits) {
    const permits = await bounded(port.listPermits(user, { state: "ACTIVE" }), ms);
    const soon = isoDay(new Date(now().getTime() + 90 * DAY));
    out.push(
      s(
        "ab-expiring-permits",
        "Data permits expiring within 90 days",
        permits.filter((p) => typeof p.validUntil === "string" && p.validUntil <= soon).length,
        "danger",
        `${permits.length} active`,
      ),
    );
  }
  return out;
}
