import { isFailedState } from "../dataspace/states";
import { formatTime } from "../dataspace/ui";

/** A state a live connector record (negotiation, transfer) was seen in, and when. */
export interface Seen {
  state: string;
  at: number;
}

/** How far the record's pipeline got: the newest state seen that is not a failure. */
export const reachedOf = (history: readonly Seen[]) =>
  history.findLast((h) => !isFailedState(h.state))?.state;

/** The states seen so far, oldest first, folded under the record's pipeline. */
export function StatesSeen({ history, testId }: { history: readonly Seen[]; testId: string }) {
  return (
    <details className="ds-history">
      <summary>States seen ({history.length})</summary>
      <ol className="plain small" data-testid={testId}>
        {history.map((h, i) => (
          <li key={`${h.state}-${i}`}>
            <code>{h.state}</code> <span className="muted">{formatTime(h.at)}</span>
          </li>
        ))}
      </ol>
    </details>
  );
}

/** The record as the connector keeps it, for those who want the JSON-LD. */
export function ConnectorRecord({ raw }: { raw: unknown }) {
  return (
    <details className="ds-raw">
      <summary>Connector record (JSON)</summary>
      <pre tabIndex={0}>{JSON.stringify(raw, null, 2)}</pre>
    </details>
  );
}
