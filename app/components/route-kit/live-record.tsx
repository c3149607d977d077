import { useEffect, useState, type ReactNode } from "react";
import { isFailedState, pipelineOf } from "../dataspace/states";
import { StatePipeline } from "../dataspace/StatePipeline";
import { DemoBadge, PollFailureNotice, StateBadge, formatTime, usePolledFetcher } from "../dataspace/ui";
import type { PolledState, PollFailure } from "./polled-state.server";
import type { TransferView } from "../../lib/dataspace/records.server";

/** A state a live connector record (negotiation, transfer) was seen in, and when. */
interface Seen {
  state: string;
  at: number;
}

/** How far the record's pipeline got: the newest state seen that is not a failure. */
const reachedOf = (history: readonly Seen[]) => history.findLast((h) => !isFailedState(h.state))?.state;

const POLL_MS = { negotiation: 400, transfer: 800 };

/**
 * A live connector record on its page: its state polled from /dataspace/{kind}/{id} until its pipeline
 * settles (a demonstration record does not change and is not polled), with the states seen so far.
 * `loadedAt`, for a page whose loader re-reads the record after an action (a transfer's pull): a poll
 * older than that read is stale, and the reloaded record's state is seen too, at the time it shows.
 */
export function useLiveRecord<P extends PolledState>(
  kind: "negotiation" | "transfer",
  record: Pick<TransferView, "id" | "state" | "stateTimestamp" | "createdAt" | "demo">,
  participantQuery: string,
  loadedAt?: number,
) {
  const [history, setHistory] = useState<Seen[]>(() => [
    { state: record.state, at: record.stateTimestamp ?? record.createdAt ?? 0 },
  ]);
  const [settled, setSettled] = useState(() => pipelineOf(kind, record.state).settled);
  const poll = usePolledFetcher<P | PollFailure>(
    `/dataspace/${kind}/${encodeURIComponent(record.id)}${participantQuery}`,
    POLL_MS[kind],
    !settled && !record.demo,
  );
  const good = poll.good;
  const live = good && good.at >= (loadedAt ?? 0) ? good : null;
  const state = live?.state ?? record.state;

  useEffect(() => {
    if (!live && loadedAt === undefined) return;
    const at = live?.stateTimestamp ?? (live && loadedAt === undefined ? live.at : Date.now());
    setHistory((h) => (h[h.length - 1]?.state === state ? h : [...h, { state, at }]));
    if (pipelineOf(kind, state).settled) setSettled(true);
  }, [kind, live, loadedAt, state]);

  return { live, state, settled, history, reached: reachedOf(history), pollError: poll.failure };
}

/**
 * The record's progress: what happens now (`status`), its pipeline, a failed poll, the termination
 * notice (with `children` after its "Terminated."), and the states seen so far, oldest first.
 */
export function ProgressCard({
  kind,
  status,
  progress: { state, reached, history, pollError },
  children,
}: {
  kind: "negotiation" | "transfer";
  status: ReactNode;
  progress: ReturnType<typeof useLiveRecord>;
  children: ReactNode;
}) {
  return (
    <div className="card ds-pipeline-card">
      <div className="ds-pipeline-head">
        <h2>Progress</h2>
        <p className="muted small" role="status" aria-live="polite" data-testid={`${kind}-live`}>
          {status}
        </p>
      </div>
      <StatePipeline kind={kind} state={state} reached={reached} testId={`${kind}-pipeline`} />
      <PollFailureNotice failure={pollError} testId={`${kind}-poll-error`} />
      {isFailedState(state) ? (
        <div className="notice error" role="alert" data-testid={`${kind}-error`}>
          <strong>Terminated.</strong> {children}
        </div>
      ) : null}
      <details className="ds-history">
        <summary>States seen ({history.length})</summary>
        <ol className="plain small" data-testid={`${kind}-history`}>
          {history.map((h, i) => (
            <li key={`${h.state}-${i}`}>
              <code>{h.state}</code> <span className="muted">{formatTime(h.at)}</span>
            </li>
          ))}
        </ol>
      </details>
    </div>
  );
}

/** The record's details (`children`: its field rows), and the record as the connector keeps it (JSON-LD). */
export function DetailsCard({ raw, children }: { raw: unknown; children: ReactNode }) {
  return (
    <div className="card">
      <h2>Details</h2>
      <dl className="fields">{children}</dl>
      <details className="ds-raw">
        <summary>Connector record (JSON)</summary>
        <pre tabIndex={0}>{JSON.stringify(raw, null, 2)}</pre>
      </details>
    </div>
  );
}

/** The head's state: the record's badge when it is a demonstration one, and the state it is in now. */
export function LiveState({ kind, demo, state }: { kind: string; demo: { demo: boolean }; state: string }) {
  return (
    <div className="ds-head-state">
      <DemoBadge of={demo} />
      <StateBadge state={state} testId={`${kind}-state`} />
    </div>
  );
}
