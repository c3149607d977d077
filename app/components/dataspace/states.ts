import type { Tone } from "../ui/Badge";

/**
 * The state pipelines of the dataspace views. A negotiation goes REQUESTED → AGREED → VERIFIED →
 * FINALIZED (DSP; the spec's other states sit between these steps), a transfer REQUESTED →
 * STARTED → COMPLETED; TERMINATED ends either with an error. Shared by server and browser code.
 */

export type PipelineKind = "negotiation" | "transfer" | "participant";

export const PIPELINE_STEPS: Record<PipelineKind, readonly string[]> = {
  negotiation: ["REQUESTED", "AGREED", "VERIFIED", "FINALIZED"],
  transfer: ["REQUESTED", "STARTED", "COMPLETED"],
  /** onboarding: the participant context is CREATED, then ACTIVATED once its DID and keys exist */
  participant: ["CREATED", "ACTIVATED"],
};

/**
 * Where a state sits on its pipeline: a step's own state has the step's number (1, 2, ...); a
 * state on the way to a step sits half a step before it (REQUESTING 0.5, AGREEING 1.5).
 */
const RANK: Record<PipelineKind, Record<string, number>> = {
  negotiation: {
    INITIAL: 0.5,
    REQUESTING: 0.5,
    REQUESTED: 1,
    OFFERING: 1.5,
    OFFERED: 1.5,
    ACCEPTING: 1.5,
    ACCEPTED: 1.5,
    AGREEING: 1.5,
    AGREED: 2,
    VERIFYING: 2.5,
    VERIFIED: 3,
    FINALIZING: 3.5,
    FINALIZED: 4,
  },
  transfer: {
    INITIAL: 0.5,
    PROVISIONING: 0.5,
    PROVISIONING_REQUESTED: 0.5,
    PROVISIONED: 0.5,
    REQUESTING: 0.5,
    REQUESTED: 1,
    STARTING: 1.5,
    STARTED: 2,
    SUSPENDING: 2,
    SUSPENDED: 2,
    RESUMING: 2,
    RESUMED: 2,
    COMPLETING: 2.5,
    COMPLETED: 3,
    DEPROVISIONING: 3,
    DEPROVISIONING_REQUESTED: 3,
    DEPROVISIONED: 3,
  },
  participant: { CREATED: 1, ACTIVATED: 2 },
};

export type StepStatus = "done" | "current" | "active" | "todo" | "failed";

export interface PipelineView {
  steps: { name: string; status: StepStatus }[];
  /** no further change is expected (the last step reached, or TERMINATED) */
  settled: boolean;
  failed: boolean;
  /** a state the pipeline does not know; shown as it is */
  unknown: boolean;
}

export const isFailedState = (state: string) => /^TERMINAT/.test(state.toUpperCase());

/**
 * The pipeline for a state. For TERMINATED, `reached` (the last state seen before it, when
 * known) tells how far the process got; the steps after it are not reached and a failed
 * TERMINATED step ends the line.
 */
export function pipelineOf(kind: PipelineKind, rawState: string, reached?: string): PipelineView {
  const state = rawState.toUpperCase();
  const steps = PIPELINE_STEPS[kind];
  const ranks = RANK[kind];
  if (isFailedState(state)) {
    const upTo = reached ? (ranks[reached.toUpperCase()] ?? 0) : 0;
    return {
      steps: [
        ...steps.map((name, i) => ({ name, status: (upTo >= i + 1 ? "done" : "todo") as StepStatus })),
        { name: "TERMINATED", status: "failed" },
      ],
      settled: true,
      failed: true,
      unknown: false,
    };
  }
  const rank = ranks[state];
  if (rank === undefined) {
    return {
      steps: steps.map((name) => ({ name, status: "todo" })),
      settled: false,
      failed: false,
      unknown: true,
    };
  }
  const last = steps.length;
  return {
    steps: steps.map((name, i) => {
      const r = i + 1;
      let status: StepStatus = "todo";
      if (rank >= r) status = rank === r && r !== last ? "current" : "done";
      else if (rank > r - 1) status = "active";
      return { name, status };
    }),
    settled: rank >= last,
    failed: false,
    unknown: false,
  };
}

/** how many of the records still run, are done, and failed */
export function stateCounts(records: readonly { kind: PipelineKind; state: string }[]) {
  const count = (f: (r: { kind: PipelineKind; state: string }) => boolean) => records.filter(f).length;
  return {
    running: count((r) => !pipelineOf(r.kind, r.state).settled),
    done: count((r) => pipelineOf(r.kind, r.state).settled && !isFailedState(r.state)),
    failed: count((r) => isFailedState(r.state)),
  };
}

export function stateTone(state: string): Tone {
  const s = state.toUpperCase();
  if (s === "FINALIZED" || s === "COMPLETED" || s === "ACTIVATED" || s === "DEPROVISIONED") return "ok";
  if (isFailedState(s)) return "danger";
  if (s.startsWith("SUSPEND") || s === "CREATED") return "warn";
  return "info";
}

/** the states a filter may offer, in pipeline order, then TERMINATED */
export function knownStates(kind: PipelineKind): string[] {
  return [...PIPELINE_STEPS[kind], "TERMINATED"];
}
