import { conflict } from "../http/errors";

/**
 * The state machines of the access body's records. Each machine lists its states and, per event,
 * the states it may fire from and the state it leads to. `transition` is the only way records change
 * state (store.ts calls it inside the transaction that writes the history entry and the audit entry);
 * an illegal event is a 409 `{ error, currentState, allowedNextStates, allowedEvents }`.
 */

export interface TransitionDef<S extends string> {
  from: readonly S[];
  /** the next state; null: the record stays in its state (a self-transition such as extending a clock) */
  to: S | null;
  /** who fires it, for documentation and the views */
  by: string;
}

export interface Machine<S extends string = string, E extends string = string> {
  name: string;
  states: readonly S[];
  /** the state a new record starts in (its creation event is `create`) */
  initial: S;
  terminal: readonly S[];
  events: Record<E, TransitionDef<S>>;
}

function machine<S extends string, E extends string>(m: Machine<S, E>): Machine<S, E> {
  for (const [event, t] of Object.entries(m.events) as [E, TransitionDef<S>][]) {
    for (const s of [...t.from, ...(t.to ? [t.to] : [])])
      if (!m.states.includes(s)) throw new Error(`${m.name}.${event}: unknown state ${s}`);
    for (const s of t.from)
      if (m.terminal.includes(s)) throw new Error(`${m.name}.${event}: fires from terminal state ${s}`);
  }
  return m;
}

/** Data access application, Art. 67–68. */
export const APPLICATION = machine({
  name: "application",
  states: [
    "RECEIVED",
    "INCOMPLETE",
    "UNDER_ASSESSMENT",
    "INFORMATION_REQUESTED",
    "GRANTED",
    "REFUSED",
    "WITHDRAWN",
  ],
  initial: "RECEIVED",
  terminal: ["GRANTED", "REFUSED", "WITHDRAWN"],
  events: {
    markComplete: {
      from: ["RECEIVED"],
      to: "UNDER_ASSESSMENT",
      by: "HDAB_AUTHORITY (completeness decision; starts the clock)",
    },
    markIncomplete: {
      from: ["RECEIVED"],
      to: "INCOMPLETE",
      by: "HDAB_AUTHORITY (completeness decision; asks for the missing items)",
    },
    supplement: { from: ["INCOMPLETE"], to: "RECEIVED", by: "DATA_USER (answers the completeness request)" },
    requestInformation: {
      from: ["UNDER_ASSESSMENT"],
      to: "INFORMATION_REQUESTED",
      by: "HDAB_AUTHORITY (pauses the clock)",
    },
    informationProvided: {
      from: ["INFORMATION_REQUESTED"],
      to: "UNDER_ASSESSMENT",
      by: "DATA_USER (answer; resumes the clock)",
    },
    informationWithdrawn: {
      from: ["INFORMATION_REQUESTED"],
      to: "UNDER_ASSESSMENT",
      by: "HDAB_AUTHORITY (withdraws the request; resumes the clock)",
    },
    grant: {
      from: ["UNDER_ASSESSMENT"],
      to: "GRANTED",
      by: "HDAB_AUTHORITY (issues the data permit; stops the clock)",
    },
    refuse: {
      from: ["RECEIVED", "INCOMPLETE", "UNDER_ASSESSMENT"],
      to: "REFUSED",
      by: "HDAB_AUTHORITY (with reasons; stops the clock)",
    },
    withdraw: {
      from: ["RECEIVED", "INCOMPLETE", "UNDER_ASSESSMENT", "INFORMATION_REQUESTED"],
      to: "WITHDRAWN",
      by: "DATA_USER",
    },
  },
});

/** The statutory decision clock of an application (Art. 68(4)). `extend` may fire once. */
export const CLOCK = machine({
  name: "clock",
  states: ["NOT_STARTED", "RUNNING", "PAUSED", "STOPPED"],
  initial: "NOT_STARTED",
  terminal: ["STOPPED"],
  events: {
    start: { from: ["NOT_STARTED"], to: "RUNNING", by: "the completeness decision" },
    pause: { from: ["RUNNING"], to: "PAUSED", by: "HDAB_AUTHORITY, or an information request being opened" },
    resume: {
      from: ["PAUSED"],
      to: "RUNNING",
      by: "HDAB_AUTHORITY, or the information request being answered or withdrawn",
    },
    extend: {
      from: ["RUNNING", "PAUSED"],
      to: null,
      by: "HDAB_AUTHORITY (once, up to three months, with reasons)",
    },
    stop: { from: ["NOT_STARTED", "RUNNING", "PAUSED"], to: "STOPPED", by: "the decision or the withdrawal" },
  },
});

/** Data request for anonymised statistics, Art. 69. */
export const DATA_REQUEST = machine({
  name: "dataRequest",
  states: ["SUBMITTED", "APPROVED", "REFUSED", "ANSWERED", "WITHDRAWN"],
  initial: "SUBMITTED",
  terminal: ["REFUSED", "ANSWERED", "WITHDRAWN"],
  events: {
    approve: { from: ["SUBMITTED"], to: "APPROVED", by: "HDAB_AUTHORITY" },
    refuse: { from: ["SUBMITTED", "APPROVED"], to: "REFUSED", by: "HDAB_AUTHORITY (with reasons)" },
    answer: { from: ["APPROVED"], to: "ANSWERED", by: "HDAB_AUTHORITY (anonymised statistical result)" },
    withdraw: { from: ["SUBMITTED", "APPROVED"], to: "WITHDRAWN", by: "DATA_USER" },
  },
});

/** Data permit, Art. 68. */
export const PERMIT = machine({
  name: "permit",
  states: ["ACTIVE", "REVOKED", "EXPIRED"],
  initial: "ACTIVE",
  terminal: ["REVOKED", "EXPIRED"],
  events: {
    revoke: { from: ["ACTIVE"], to: "REVOKED", by: "HDAB_AUTHORITY (with reasons)" },
    expire: { from: ["ACTIVE"], to: "EXPIRED", by: "the system, when the permit's end date has passed" },
  },
});

/** Information request to an applicant (pauses the decision clock). */
export const INFORMATION_REQUEST = machine({
  name: "informationRequest",
  states: ["OPEN", "ANSWERED", "WITHDRAWN"],
  initial: "OPEN",
  terminal: ["ANSWERED", "WITHDRAWN"],
  events: {
    answer: { from: ["OPEN"], to: "ANSWERED", by: "DATA_USER of the applicant organisation" },
    withdraw: { from: ["OPEN"], to: "WITHDRAWN", by: "HDAB_AUTHORITY" },
  },
});

/** Supervision finding about a data user or data holder. */
export const FINDING = machine({
  name: "finding",
  states: ["OPEN", "RESPONDED", "CLOSED"],
  initial: "OPEN",
  terminal: ["CLOSED"],
  events: {
    respond: {
      from: ["OPEN"],
      to: "RESPONDED",
      by: "DATA_USER or DATA_HOLDER of the organisation concerned",
    },
    close: { from: ["OPEN", "RESPONDED"], to: "CLOSED", by: "HDAB_AUTHORITY (with an outcome)" },
  },
});

/** Result declared by a data user, checked before release, published within 18 months (Art. 61(4)). */
export const RESULT = machine({
  name: "result",
  states: ["DECLARED", "RELEASED", "REJECTED", "PUBLISHED"],
  initial: "DECLARED",
  terminal: ["PUBLISHED"],
  events: {
    release: { from: ["DECLARED"], to: "RELEASED", by: "HDAB_AUTHORITY (output check passed)" },
    reject: { from: ["DECLARED"], to: "REJECTED", by: "HDAB_AUTHORITY (output check failed, with reasons)" },
    resubmit: { from: ["REJECTED"], to: "DECLARED", by: "DATA_USER (revised output)" },
    publish: { from: ["RELEASED"], to: "PUBLISHED", by: "DATA_USER (where it was published)" },
  },
});

export const MACHINES = {
  application: APPLICATION,
  clock: CLOCK,
  dataRequest: DATA_REQUEST,
  permit: PERMIT,
  informationRequest: INFORMATION_REQUEST,
  finding: FINDING,
  result: RESULT,
} as const;

export function allowedEvents<S extends string, E extends string>(
  m: Machine<S, E>,
  state: S,
  exclude: readonly E[] = [],
): E[] {
  return (Object.keys(m.events) as E[]).filter(
    (e) => m.events[e].from.includes(state) && !exclude.includes(e),
  );
}

export function allowedNextStates<S extends string, E extends string>(
  m: Machine<S, E>,
  state: S,
  exclude: readonly E[] = [],
): S[] {
  return [...new Set(allowedEvents(m, state, exclude).map((e) => m.events[e].to ?? state))];
}

/** The 409 of an illegal transition. */
export function illegalTransition<S extends string, E extends string>(
  m: Machine<S, E>,
  state: S,
  event: string,
  message?: string,
  exclude: readonly E[] = [],
) {
  return conflict(message ?? `Cannot ${event} a ${m.name} in state ${state}`, {
    currentState: state,
    allowedNextStates: allowedNextStates(m, state, exclude),
    allowedEvents: allowedEvents(m, state, exclude),
  });
}

/** The next state, or a 409 when `event` may not fire in `state`. */
export function transition<S extends string, E extends string>(
  m: Machine<S, E>,
  state: S,
  event: E,
  exclude: readonly E[] = [],
): S {
  const t = m.events[event];
  if (!t) throw new Error(`${m.name}: unknown event ${event}`);
  if (!t.from.includes(state) || exclude.includes(event))
    throw illegalTransition(m, state, event, undefined, exclude);
  return t.to ?? state;
}

/** Replays a sequence of events from the initial state; used by the consistency probe and the tests. */
export function replay<S extends string, E extends string>(m: Machine<S, E>, events: readonly E[]): S {
  let s = m.initial;
  for (const e of events) s = transition(m, s, e);
  return s;
}

/** the application states that still wait for a decision (not terminal): the work queue's and the home cards' "awaiting a decision" */
export const UNDECIDED_APPLICATION_STATES: readonly string[] = APPLICATION.states.filter(
  (s) => !(APPLICATION.terminal as readonly string[]).includes(s),
);
/** the `?state=` of the applications list that stands for every undecided state */
export const UNDECIDED = "UNDECIDED";
