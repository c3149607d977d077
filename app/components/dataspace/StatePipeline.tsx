import { stateLabel } from "../ui/labels";
import { pipelineOf, type PipelineKind, type StepStatus } from "./states";

const STATUS_TEXT: Record<StepStatus, string> = {
  done: "reached",
  current: "current state",
  active: "in progress",
  todo: "not reached yet",
  failed: "failed",
};

const MARK: Record<StepStatus, string> = { done: "✓", current: "●", active: "", todo: "", failed: "✕" };

/** a process's kind in words (the pipeline's label, the work queue's Kind column) */
export const KIND_LABEL: Record<PipelineKind, string> = {
  negotiation: "Negotiation",
  transfer: "Transfer",
  participant: "Provisioning",
};

/**
 * A state pipeline (REQUESTED → AGREED → VERIFIED → FINALIZED, or REQUESTED → STARTED →
 * COMPLETED), with TERMINATED as a failed last step. Text carries the meaning (each step says
 * whether it is reached); colour and marks only repeat it.
 */
export function StatePipeline({
  kind,
  state,
  reached,
  compact = false,
  testId,
}: {
  kind: PipelineKind;
  state: string;
  /** for TERMINATED: the last state seen before it */
  reached?: string;
  compact?: boolean;
  testId?: string;
}) {
  const view = pipelineOf(kind, state, reached);
  return (
    <ol
      className={`ds-pipeline${compact ? " compact" : ""}${view.failed ? " failed" : ""}`}
      aria-label={`${KIND_LABEL[kind]} progress: ${state || "unknown"}`}
      data-testid={testId}
      data-state={state}
      data-settled={view.settled ? "true" : "false"}
    >
      {view.steps.map((step) => (
        <li
          key={step.name}
          className={`ds-step ds-step-${step.status}`}
          aria-current={step.status === "current" || step.status === "active" ? "step" : undefined}
          data-testid={testId ? `${testId}-step-${step.name}` : undefined}
          data-status={step.status}
          title={compact ? `${stateLabel(step.name)}: ${STATUS_TEXT[step.status]}` : undefined}
        >
          <span className="ds-dot" aria-hidden>
            {compact ? "" : MARK[step.status]}
          </span>
          <span className={compact ? "visually-hidden" : "ds-step-label"}>
            {stateLabel(step.name)}
            <span className="visually-hidden"> ({STATUS_TEXT[step.status]})</span>
          </span>
        </li>
      ))}
      {view.unknown ? (
        <li className="ds-step ds-step-current" aria-current="step">
          <span className="ds-dot" aria-hidden>
            ?
          </span>
          <span className={compact ? "visually-hidden" : "ds-step-label"}>{state}</span>
        </li>
      ) : null}
    </ol>
  );
}
