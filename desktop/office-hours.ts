import type { HttpGet, ProbeResponse } from "./electron-api";

/**
 * Is the hosted stack open? Outside its office hours (or on a hold day) the hosted stack answers
 * every page with the offline notice (HTTP 503 with Retry-After and a `<time datetime>` of the next
 * opening) and every data route with 503 JSON `{ nextOpening }` (server/http/offline-notice.ts). A
 * stack that is stopped behind its proxy may answer 503 with Retry-After on /api/health too. The
 * desktop asks both and shows its own notice, with a button that switches to the offline demo.
 */

export type HostedState =
  | { state: "open" }
  | { state: "closed"; nextOpening: Date | null; reason: "hours" | "hold" | "unknown" }
  | { state: "unreachable"; error: string };

export const PROBE_TIMEOUT_MS = 5_000;

const header = (r: ProbeResponse, name: string) =>
  Object.entries(r.headers).find(([k]) => k.toLowerCase() === name)?.[1];

function nextOpeningOf(r: ProbeResponse, now: Date): Date | null {
  const fromJson = (() => {
    try {
      const j = JSON.parse(r.body) as { nextOpening?: unknown };
      return typeof j.nextOpening === "string" ? new Date(j.nextOpening) : null;
    } catch {
      return null;
    }
  })();
  if (fromJson && !Number.isNaN(fromJson.getTime())) return fromJson;
  const m = /<time[^>]*\sdatetime="([^"]+)"/.exec(r.body);
  if (m) {
    const d = new Date(m[1]);
    if (!Number.isNaN(d.getTime())) return d;
  }
  const retry = Number(header(r, "retry-after"));
  return Number.isFinite(retry) && retry > 0 ? new Date(now.getTime() + retry * 1000) : null;
}

function reasonOf(r: ProbeResponse): "hours" | "hold" | "unknown" {
  if (/"reason"\s*:\s*"hold"|on hold today/i.test(r.body)) return "hold";
  if (/"reason"\s*:\s*"hours"|office hours/i.test(r.body)) return "hours";
  return "unknown";
}

const closedAnswer = (r: ProbeResponse | undefined) =>
  !!r && r.status === 503 && header(r, "retry-after") !== undefined;

/** the decision from the two answers (either may be an error), pure */
export function officeDecision(
  page: ProbeResponse | Error,
  health: ProbeResponse | Error,
  now: Date,
): HostedState {
  const answers = [page, health].filter((r): r is ProbeResponse => !(r instanceof Error));
  const closed = answers.find(closedAnswer);
  if (closed) return { state: "closed", nextOpening: nextOpeningOf(closed, now), reason: reasonOf(closed) };
  if (!answers.length) return { state: "unreachable", error: (page as Error).message };
  return { state: "open" };
}

export async function probeHosted(
  get: HttpGet,
  hostedUrl: string,
  now: () => Date = () => new Date(),
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<HostedState> {
  const base = hostedUrl.replace(/\/+$/, "");
  const settle = (p: Promise<ProbeResponse>) =>
    p.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  const [page, health] = await Promise.all([
    settle(get(`${base}/`, { timeoutMs })),
    settle(get(`${base}/api/health`, { timeoutMs })),
  ]);
  return officeDecision(page, health, now());
}

/** an HttpGet over fetch (redirects not followed: a sign-in redirect means "open") */
export const fetchGet: HttpGet = async (url, { timeoutMs }) => {
  const res = await fetch(url, {
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
    headers: { Accept: "text/html,application/json" },
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  return { status: res.status, headers, body: (await res.text()).slice(0, 64 * 1024) };
};
