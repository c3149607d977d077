import { z } from "zod";
import { addDays, addMonths, berlinDate, daysBetween, endOfBerlinDay, rollToWorkingDay } from "./calendar";
import { CLOCK, illegalTransition, transition } from "./machines";
import { PERIODS } from "./periods";
import { invalidField } from "../http/field-errors";

/**
 * The statutory decision clock of a data access application (Art. 68(4)): it starts on the day a
 * complete application is received, runs for three calendar months, may be extended once by up to
 * three months with reasons, and stops while an information request to the applicant is open.
 *
 * Counting (Europe/Berlin civil dates, Regulation 1182/71 Art. 3, see calendar.ts):
 *   raw end   = start date + (3 + extension) calendar months (same date, or the month's last day)
 *   deadline  = raw end + calendar days paused, rolled forward to a working day when it is not one
 *   due at    = the last millisecond of the deadline day in Berlin (DST-aware)
 * A pause counts the calendar days from the day it began to the day it ended (a pause opened and
 * closed on the same day moves nothing). While a pause is open, the deadline is shown as if the clock
 * resumed today, so the days left stay the same while it is paused.
 */

export const clockState = z.enum(CLOCK.states);
const clockPause = z.object({
  from: z.string().describe("the instant the pause began"),
  fromDate: z.string().describe("the Berlin date the pause began"),
  to: z.string().optional(),
  toDate: z.string().optional(),
  reason: z.string(),
  informationRequestId: z
    .string()
    .optional()
    .describe("set when the pause belongs to an information request"),
});

/** an application's decision clock as stored */
export const clockData = z.object({
  state: clockState,
  startDate: z
    .string()
    .optional()
    .describe("Berlin date a complete application was received (the period runs from it)"),
  startedAt: z.string().optional(),
  extension: z
    .object({ months: z.number().int(), reason: z.string(), at: z.string(), by: z.string() })
    .optional(),
  pauses: z.array(clockPause),
  stoppedAt: z.string().optional(),
  stoppedDate: z.string().optional(),
});
export type ClockData = z.infer<typeof clockData>;

const days = z.number().int().nullable();
/** the clock as answered: its deadline and days left today */
export const clockViewSchema = z.object({
  state: clockState,
  startDate: z.string().nullable(),
  periodMonths: z.number().int(),
  extensionMonths: z.number().int(),
  pausedDays: z.number().int(),
  rawEndDate: z.string().nullable().describe("the end date before pauses and the working-day rule"),
  deadlineDate: z.string().nullable(),
  deadlineAt: z.string().nullable(),
  daysLeft: days.describe(
    "calendar days from today (Berlin) to the deadline; null when the clock is not running or paused",
  ),
  overdue: z.boolean(),
  stoppedDate: z.string().nullable().describe("the decision (or withdrawal) date when stopped"),
  elapsedDays: days.describe("when stopped: calendar days the decision took, not counting paused days"),
  metDeadline: z
    .boolean()
    .nullable()
    .describe("when stopped: whether the decision came on or before the deadline"),
  canExtend: z.boolean(),
});
export type ClockView = z.infer<typeof clockViewSchema>;

export const newClock = (): ClockData => ({ state: "NOT_STARTED", pauses: [] });

export function startClock(clock: ClockData, at: Date): ClockData {
  const state = transition(CLOCK, clock.state, "start");
  return { ...clock, state, startDate: berlinDate(at), startedAt: at.toISOString() };
}

export function pauseClock(
  clock: ClockData,
  at: Date,
  reason: string,
  informationRequestId?: string,
): ClockData {
  const state = transition(CLOCK, clock.state, "pause");
  const pause = {
    from: at.toISOString(),
    fromDate: berlinDate(at),
    reason,
    ...(informationRequestId ? { informationRequestId } : {}),
  };
  return { ...clock, state, pauses: [...clock.pauses, pause] };
}

export function resumeClock(clock: ClockData, at: Date): ClockData {
  const state = transition(CLOCK, clock.state, "resume");
  const pauses = clock.pauses.map((p, i) =>
    i === clock.pauses.length - 1 && !p.to ? { ...p, to: at.toISOString(), toDate: berlinDate(at) } : p,
  );
  return { ...clock, state, pauses };
}

/** the 409 refusing `event` for `reason`: the event is left out of what the clock allows next */
export const clockRefused = (clock: ClockData, event: keyof (typeof CLOCK)["events"], reason: string) =>
  illegalTransition(CLOCK, clock.state, event, reason, [event]);

export function extendClock(
  clock: ClockData,
  at: Date,
  months: number,
  reason: string,
  by: string,
): ClockData {
  const max = PERIODS.applicationExtension.amount;
  if (clock.extension)
    throw clockRefused(
      clock,
      "extend",
      "The decision period was already extended once (Art. 68(4) allows one extension)",
    );
  if (!Number.isInteger(months) || months < 1 || months > max) {
    throw invalidField(
      "months",
      `months must be a whole number from 1 to ${max} (${PERIODS.applicationExtension.article})`,
    );
  }
  const view = clockView(clock, at);
  if (view.overdue)
    throw clockRefused(
      clock,
      "extend",
      `The decision period ended on ${view.deadlineDate}; it can no longer be extended`,
    );
  transition(CLOCK, clock.state, "extend");
  // extending keeps a pause open: the state stays PAUSED until the pause ends
  return { ...clock, extension: { months, reason, at: at.toISOString(), by } };
}

/** the clock stopped at `at`; a stopped clock as it is (a decision on a decided application is refused by its own machine) */
export function stopClock(clock: ClockData, at: Date): ClockData {
  if (clock.state === "STOPPED") return clock;
  const c = clock.state === "PAUSED" ? resumeClock(clock, at) : clock;
  const state = transition(CLOCK, c.state, "stop");
  return { ...c, state, stoppedAt: at.toISOString(), stoppedDate: berlinDate(at) };
}

/** Calendar days paused; an open pause counts up to `today`. */
export function pausedDays(clock: ClockData, today: string): number {
  return clock.pauses.reduce((sum, p) => sum + Math.max(0, daysBetween(p.fromDate, p.toDate ?? today)), 0);
}

export function clockView(clock: ClockData, now: Date): ClockView {
  const months = PERIODS.applicationDecision.amount;
  const extensionMonths = clock.extension?.months ?? 0;
  const base: ClockView = {
    state: clock.state,
    startDate: clock.startDate ?? null,
    periodMonths: months,
    extensionMonths,
    pausedDays: 0,
    rawEndDate: null,
    deadlineDate: null,
    deadlineAt: null,
    daysLeft: null,
    overdue: false,
    stoppedDate: clock.stoppedDate ?? null,
    elapsedDays: null,
    metDeadline: null,
    canExtend: false,
  };
  if (!clock.startDate) return base;
  const today = berlinDate(now);
  const asOf = clock.stoppedDate ?? today;
  const paused = pausedDays(clock, asOf);
  const rawEnd = addMonths(clock.startDate, months + extensionMonths);
  const deadline = rollToWorkingDay(addDays(rawEnd, paused));
  const view: ClockView = {
    ...base,
    pausedDays: paused,
    rawEndDate: rawEnd,
    deadlineDate: deadline,
    deadlineAt: endOfBerlinDay(deadline).toISOString(),
  };
  if (clock.state === "STOPPED" && clock.stoppedDate) {
    const elapsed = daysBetween(clock.startDate, clock.stoppedDate) - paused;
    return { ...view, elapsedDays: elapsed, metDeadline: clock.stoppedDate <= deadline };
  }
  const daysLeft = daysBetween(today, deadline);
  return { ...view, daysLeft, overdue: daysLeft < 0, canExtend: !clock.extension && daysLeft >= 0 };
}

/** A deadline a fixed period after a date, for the other records (data requests, results, completion). */
export function periodEnd(fromDate: string, amount: number, unit: "months" | "weeks" | "days"): string {
  const raw =
    unit === "months"
      ? addMonths(fromDate, amount)
      : addDays(fromDate, unit === "weeks" ? amount * 7 : amount);
  return rollToWorkingDay(raw);
}
