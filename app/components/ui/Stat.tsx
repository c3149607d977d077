import type { ReactNode } from "react";
import { formatNumber } from "./format";

type StatProps = { label: string; value?: number; testId?: string; children?: ReactNode };

/** a figure on a card of a stat grid: its label, the number (`testId` on it) and what follows (`children`) */
export function Stat({ label, value, testId, children }: StatProps) {
  return (
    <div className="card stat">
      <span className="stat-label">{label}</span>
      {value === undefined ? null : (
        <span className="stat-value" data-testid={testId}>
          {formatNumber(value)}
        </span>
      )}
      {children}
    </div>
  );
}
