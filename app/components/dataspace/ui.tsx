import { Form, useFetcher, useRouteLoaderData, useSubmit } from "@remix-run/react";
import type { RootData } from "../../root";
import type { Acting } from "../../lib/dataspace/access.server";
import { useState, type ReactNode } from "react";
import { Badge } from "../ui/Badge";
import { formatDate } from "../ui/format";
import { roleLabel, stateLabel } from "../ui/labels";
import { stateTone } from "./states";
import { AppLink, SubNav } from "../ui/app-link";
import { usePolling } from "../patient-app/usePolling";

/** Small shared pieces of the dataspace views (browser-safe). */

/**
 * The top of a dataspace page: the dataspace views' own navigation, the entries the root loader gives
 * the signed-in user (app/lib/navigation.server.ts, only the views their roles may open); a link
 * `back` to the list; the page's heading with its lead (`children`) and, beside them, `aside`.
 */
export function DataspaceHead({
  title,
  back,
  aside,
  children,
}: {
  title: ReactNode;
  back?: { to: string; label: string };
  aside?: ReactNode;
  children: ReactNode;
}) {
  const items = useRouteLoaderData<RootData>("root")?.dataspaceNav ?? [];
  return (
    <>
      <SubNav
        items={items.map((i) => ({ ...i, end: i.to === "/dataspace" }))}
        className="ds-subnav"
        aria-label="Dataspace"
        data-testid="dataspace-nav"
      />
      {back ? (
        <p className="muted small">
          <AppLink to={back.to}>{back.label}</AppLink>
        </p>
      ) : null}
      <header className="page-head">
        <div>
          <h1>{title}</h1>
          <p className="lead">{children}</p>
        </div>
        {aside}
      </header>
    </>
  );
}

/** An admin's choice of participant context (GET form, submitted on change; a button without JavaScript). */
export function ParticipantPicker({
  acting,
  label = "Acting as participant",
  keep = {},
  every,
}: {
  acting: Acting;
  label?: string;
  /** other query parameters to keep */
  keep?: Record<string, string>;
  /** a first choice "Every participant" (the operator's negotiations), its value and whether it is chosen */
  every?: { value: string; chosen: boolean };
}) {
  const submit = useSubmit();
  if (!acting.canChoose) {
    return acting.participantId ? (
      <p className="ds-acting" data-testid="acting-participant">
        <span className="muted">Participant:</span> <strong>{acting.displayName}</strong>{" "}
        <code className="wrap">{acting.did}</code>
      </p>
    ) : null;
  }
  return (
    <Form
      method="get"
      className="ds-picker"
      data-testid="participant-picker"
      onChange={(e) => submit(e.currentTarget, { replace: true, preventScrollReset: true })}
    >
      {Object.entries(keep).map(([k, v]) => (v ? <input key={k} type="hidden" name={k} value={v} /> : null))}
      <label className="filter">
        <span>{label}</span>
        <select
          name="participant"
          defaultValue={every?.chosen ? every.value : (acting.participantId ?? "")}
          data-testid="participant-select"
        >
          {every ? <option value={every.value}>Every participant</option> : null}
          {acting.choices.map((c) => (
            <option key={c.participantId} value={c.participantId}>
              {c.displayName}
              {c.role ? ` (${roleLabel(c.role)})` : ""}
            </option>
          ))}
        </select>
      </label>
      <noscript>
        <button type="submit" className="button small">
          Show
        </button>
      </noscript>
    </Form>
  );
}

export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return (
    <Badge tone={stateTone(state)} testId={testId}>
      {state ? stateLabel(state) : "Unknown"}
    </Badge>
  );
}

/** the badge of a bundled demonstration record, after a space, when `of` is one */
export function DemoBadge({ of }: { of: { demo: boolean } }) {
  return of.demo ? (
    <>
      {" "}
      <span title="A bundled demonstration record, not a live connector record">
        <Badge tone="neutral">demonstration record</Badge>
      </span>
    </>
  ) : null;
}

/** A service failure as the views show it: the message, and the upstream detail when there is one. */
export function ErrorNotice({
  error,
  testId,
  children,
}: {
  error: { error: string; detail?: string | null } | null | undefined;
  testId?: string;
  children?: ReactNode;
}) {
  if (!error) return null;
  return (
    <div className="notice error" role="alert" data-testid={testId}>
      <strong>{error.error}</strong>
      {error.detail ? <p className="ds-detail">{error.detail}</p> : null}
      {children}
    </div>
  );
}

/** a poll that failed (usePolledFetcher's `failure`): its error, and that the page shows the last state read */
export function PollFailureNotice({ failure, testId }: { failure: ErrorOf; testId?: string }) {
  return (
    <ErrorNotice error={failure} testId={testId}>
      <p className="small">Refreshing the state failed: it shows the last state read.</p>
    </ErrorNotice>
  );
}
type ErrorOf = Parameters<typeof ErrorNotice>[0]["error"];

/**
 * Loads `url` with a fetcher every `ms` while `active` (one request at a time). Answers the last
 * good answer (`good`) and the latest answer when it is a failure (`failure`): a failed poll keeps
 * what was read before it on the page.
 */
export function usePolledFetcher<T extends { ok: boolean }>(url: string, ms: number, active: boolean) {
  const fetcher = useFetcher<T>();
  usePolling(() => fetcher.state === "idle" && fetcher.load(url), ms, active);
  const data = fetcher.data as T | undefined;
  const [good, setGood] = useState<Extract<T, { ok: true }>>();
  if (data?.ok && data !== good) setGood(data as Extract<T, { ok: true }>);
  return { good, failure: data && !data.ok ? (data as Extract<T, { ok: false }>) : null };
}

/** "14:05:09 UTC" (fixed locale and zone: the server render and the browser agree) */
export function formatTime(ms: number | null | undefined): string {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms <= 0) return "";
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** "3 Jun 2025, 08:01:03 UTC" */
export function formatStamp(ms: number | null | undefined): string {
  const time = formatTime(ms);
  return time && `${formatDate(ms)}, ${time}`;
}

/** the short form of a long id for tables: the first 8 characters of a UUID, the whole id otherwise */
export function shortId(id: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(id) ? `${id.slice(0, 8)}…` : id;
}

/** `?participant=` for admins' links, so that a detail opens in the context it was listed in */
export function participantQuery(acting: { canChoose: boolean; participantId: string | null }): string {
  return acting.canChoose && acting.participantId
    ? `?participant=${encodeURIComponent(acting.participantId)}`
    : "";
}
