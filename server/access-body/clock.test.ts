import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isApiError } from "../http/errors";
import {
  addDays,
  addMonths,
  berlinDate,
  daysBetween,
  easterSunday,
  endOfBerlinDay,
  germanNationwideHolidays,
  isWorkingDay,
  rollToWorkingDay,
  startOfBerlinDay,
} from "./calendar";
import {
  clockView,
  extendClock,
  newClock,
  pauseClock,
  periodEnd,
  resumeClock,
  startClock,
  stopClock,
} from "./clock";

/** `n` working days after `date` (the day of the event itself not counted, Art. 3(1)) */
function addWorkingDays(date: string, n: number): string {
  let d = date;
  let left = n;
  while (left > 0) {
    d = addDays(d, 1);
    if (isWorkingDay(d)) left--;
  }
  return d;
}

/** an instant at the given Berlin wall time (the offset is given explicitly to keep the tests readable) */
const t = (iso: string) => new Date(iso);

function expect409(fn: () => unknown, currentState: string) {
  try {
    fn();
  } catch (e) {
    expect(isApiError(e)).toBe(true);
    const err = e as { status: number; extra: Record<string, unknown>; message: string };
    expect(err.status).toBe(409);
    expect(err.extra.currentState).toBe(currentState);
    expect(Array.isArray(err.extra.allowedNextStates)).toBe(true);
    return err;
  }
  throw new Error("expected a 409");
}

describe("calendar (Europe/Berlin, Regulation 1182/71)", () => {
  it("adds calendar months, clamping to the end of shorter months", () => {
    expect(addMonths("2025-01-15", 3)).toBe("2025-04-15");
    expect(addMonths("2025-01-31", 1)).toBe("2025-02-28");
    expect(addMonths("2024-01-31", 1)).toBe("2024-02-29");
    expect(addMonths("2025-11-30", 3)).toBe("2026-02-28");
    expect(addMonths("2023-11-30", 3)).toBe("2024-02-29");
    expect(addMonths("2025-08-31", 6)).toBe("2026-02-28");
    expect(addMonths("2025-10-31", 2)).toBe("2025-12-31");
    expect(addMonths("2025-12-15", 3)).toBe("2026-03-15");
  });

  it("converts instants to Berlin civil dates around midnight and across DST", () => {
    expect(berlinDate(t("2025-03-30T22:30:00Z"))).toBe("2025-03-31"); // 00:30 CEST
    expect(berlinDate(t("2025-01-31T23:30:00Z"))).toBe("2025-02-01"); // 00:30 CET
    expect(berlinDate(t("2025-10-26T22:59:59Z"))).toBe("2025-10-26"); // 23:59 CET
  });

  it("gives the Berlin date of any instant, asked in any order (it remembers the last minute asked)", () => {
    const berlin = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" });
    const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) });
    // instants near each other and a day's boundary, as well as far apart
    const near = fc.tuple(instant, fc.integer({ min: -120_000, max: 120_000 }));
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            instant,
            near.map(([a, d]) => a - (a % 3_600_000) + d),
          ),
        ),
        (ms) => {
          for (const m of ms) expect(berlinDate(new Date(m))).toBe(berlin.format(new Date(m)));
        },
      ),
    );
  });

  it("knows where Berlin days begin and end on the days the clocks change", () => {
    // spring forward: 30 Mar 2025 has 23 hours
    expect(startOfBerlinDay("2025-03-30").toISOString()).toBe("2025-03-29T23:00:00.000Z");
    expect(endOfBerlinDay("2025-03-30").toISOString()).toBe("2025-03-30T21:59:59.999Z");
    // fall back: 26 Oct 2025 has 25 hours
    expect(startOfBerlinDay("2025-10-26").toISOString()).toBe("2025-10-25T22:00:00.000Z");
    expect(endOfBerlinDay("2025-10-26").toISOString()).toBe("2025-10-26T22:59:59.999Z");
    expect(endOfBerlinDay("2025-01-15").toISOString()).toBe("2025-01-15T22:59:59.999Z");
    expect(endOfBerlinDay("2025-07-15").toISOString()).toBe("2025-07-15T21:59:59.999Z");
  });

  it("computes Easter and the nationwide German public holidays", () => {
    expect(easterSunday(2025)).toBe("2025-04-20");
    expect(easterSunday(2026)).toBe("2026-04-05");
    expect(easterSunday(2024)).toBe("2024-03-31");
    expect(germanNationwideHolidays(2025)).toEqual([
      "2025-01-01",
      "2025-04-18",
      "2025-04-21",
      "2025-05-01",
      "2025-05-29",
      "2025-06-09",
      "2025-10-03",
      "2025-12-25",
      "2025-12-26",
    ]);
  });

  it("moves a last day on a weekend or holiday to the next working day (Art. 3(4))", () => {
    expect(rollToWorkingDay("2025-04-15")).toBe("2025-04-15"); // Tuesday
    expect(rollToWorkingDay("2026-02-28")).toBe("2026-03-02"); // Saturday
    expect(rollToWorkingDay("2025-12-25")).toBe("2025-12-29"); // Christmas, Boxing Day, weekend
    expect(rollToWorkingDay("2025-04-18")).toBe("2025-04-22"); // Good Friday .. Easter Monday
    expect(addWorkingDays("2025-12-22", 6)).toBe("2026-01-02"); // skips 25/26 Dec, the weekend and 1 Jan
  });

  it("counts days between civil dates without DST drift", () => {
    expect(daysBetween("2025-03-29", "2025-03-31")).toBe(2);
    expect(daysBetween("2025-10-25", "2025-10-27")).toBe(2);
    expect(daysBetween("2025-04-15", "2025-04-10")).toBe(-5);
  });
});

describe("the statutory decision clock (Art. 68(4))", () => {
  const started = (iso: string) => startClock(newClock(), t(iso));

  it("runs three calendar months from the day a complete application was received", () => {
    const c = started("2025-01-15T09:00:00+01:00");
    const v = clockView(c, t("2025-01-20T12:00:00+01:00"));
    expect(v.state).toBe("RUNNING");
    expect(v.startDate).toBe("2025-01-15");
    expect(v.rawEndDate).toBe("2025-04-15");
    expect(v.deadlineDate).toBe("2025-04-15");
    // the end of 15 April in Berlin, already summer time
    expect(v.deadlineAt).toBe("2025-04-15T21:59:59.999Z");
    expect(v.daysLeft).toBe(85);
    expect(v.overdue).toBe(false);
    expect(v.canExtend).toBe(true);
  });

  it("takes the receipt day in Berlin, not in UTC", () => {
    // 23:30 UTC on 31 Jan is already 1 Feb in Berlin: the period runs from 1 Feb
    const v = clockView(started("2025-01-31T23:30:00Z"), t("2025-02-02T10:00:00Z"));
    expect(v.startDate).toBe("2025-02-01");
    expect(v.rawEndDate).toBe("2025-05-01");
    expect(v.deadlineDate).toBe("2025-05-02"); // 1 May is a public holiday
  });

  it("ends at the last day of a shorter month and rolls a weekend deadline to Monday", () => {
    const v = clockView(started("2025-11-30T10:00:00+01:00"), t("2025-12-01T10:00:00+01:00"));
    expect(v.rawEndDate).toBe("2026-02-28");
    expect(v.deadlineDate).toBe("2026-03-02");
    const leap = clockView(started("2023-11-30T10:00:00+01:00"), t("2023-12-01T10:00:00+01:00"));
    expect(leap.deadlineDate).toBe("2024-02-29");
  });

  it("computes deadlines across daylight-saving changes", () => {
    // ends on 30 March 2025, the day clocks go forward (a Sunday): next working day, end of day in CEST
    const spring = clockView(started("2024-12-30T10:00:00+01:00"), t("2025-01-02T10:00:00+01:00"));
    expect(spring.rawEndDate).toBe("2025-03-30");
    expect(spring.deadlineDate).toBe("2025-03-31");
    expect(spring.deadlineAt).toBe("2025-03-31T21:59:59.999Z");
    // ends on 26 October 2025, the day clocks go back (a Sunday): Monday, end of day in CET
    const autumn = clockView(started("2025-07-26T10:00:00+02:00"), t("2025-08-01T10:00:00+02:00"));
    expect(autumn.rawEndDate).toBe("2025-10-26");
    expect(autumn.deadlineDate).toBe("2025-10-27");
    expect(autumn.deadlineAt).toBe("2025-10-27T22:59:59.999Z");
    // days left are whole calendar days even when the remaining time spans a 23- or 25-hour day
    expect(clockView(started("2025-07-28T10:00:00+02:00"), t("2025-10-25T23:30:00+02:00")).daysLeft).toBe(3);
  });

  it("stops while paused, keeps the days left while paused, and moves the deadline by the days paused", () => {
    let c = started("2025-01-15T09:00:00+01:00");
    c = pauseClock(c, t("2025-02-10T11:00:00+01:00"), "information request IR-1", "IR-1");
    const during1 = clockView(c, t("2025-02-12T09:00:00+01:00"));
    const during2 = clockView(c, t("2025-02-20T09:00:00+01:00"));
    expect(during1.state).toBe("PAUSED");
    expect(during1.daysLeft).toBe(during2.daysLeft);
    expect(during2.deadlineDate).toBe("2025-04-25");
    c = resumeClock(c, t("2025-02-24T16:00:00+01:00"));
    const after = clockView(c, t("2025-02-25T09:00:00+01:00"));
    expect(after.state).toBe("RUNNING");
    expect(after.pausedDays).toBe(14);
    expect(after.deadlineDate).toBe("2025-04-29");
    expect(after.daysLeft).toBe(daysBetween("2025-02-25", "2025-04-29"));
  });

  it("moves nothing for a pause opened and closed on the same day, and adds up several pauses", () => {
    let c = started("2025-01-15T09:00:00+01:00");
    c = resumeClock(pauseClock(c, t("2025-01-20T09:00:00+01:00"), "x"), t("2025-01-20T17:00:00+01:00"));
    expect(clockView(c, t("2025-01-21T09:00:00+01:00")).deadlineDate).toBe("2025-04-15");
    c = resumeClock(pauseClock(c, t("2025-02-01T09:00:00+01:00"), "y"), t("2025-02-04T09:00:00+01:00"));
    c = resumeClock(pauseClock(c, t("2025-03-01T09:00:00+01:00"), "z"), t("2025-03-03T09:00:00+01:00"));
    const v = clockView(c, t("2025-03-04T09:00:00+01:00"));
    expect(v.pausedDays).toBe(5);
    expect(v.deadlineDate).toBe("2025-04-22"); // 15 Apr + 5 = 20 Apr (Easter Sunday) -> Easter Monday -> 22 Apr
  });

  it("extends once, by up to three months, and refuses a second extension with a 409", () => {
    let c = started("2025-01-15T09:00:00+01:00");
    c = extendClock(c, t("2025-03-01T09:00:00+01:00"), 3, "cross-border linkage", "regulator");
    const v = clockView(c, t("2025-03-02T09:00:00+01:00"));
    expect(v.extensionMonths).toBe(3);
    expect(v.rawEndDate).toBe("2025-07-15");
    expect(v.deadlineDate).toBe("2025-07-15");
    expect(v.canExtend).toBe(false);
    const err = expect409(
      () => extendClock(c, t("2025-03-03T09:00:00+01:00"), 1, "again", "regulator"),
      "RUNNING",
    );
    expect(err.message).toMatch(/already extended/);
    expect(err.extra.allowedEvents).not.toContain("extend");
    expect(() =>
      extendClock(started("2025-01-15T09:00:00+01:00"), t("2025-03-01T09:00:00+01:00"), 4, "too long", "r"),
    ).toThrow(/1 to 3/);
  });

  it("extends a paused clock without resuming it, and combines extension and pause", () => {
    let c = started("2025-01-15T09:00:00+01:00");
    c = pauseClock(c, t("2025-02-10T09:00:00+01:00"), "IR", "IR-1");
    c = extendClock(c, t("2025-02-11T09:00:00+01:00"), 1, "complex", "regulator");
    expect(c.state).toBe("PAUSED");
    c = resumeClock(c, t("2025-02-20T09:00:00+01:00"));
    expect(clockView(c, t("2025-02-21T09:00:00+01:00")).deadlineDate).toBe("2025-05-26"); // 15 May + 10 days = 25 May (Sunday)
  });

  it("refuses an extension after the deadline has passed", () => {
    const c = started("2025-01-15T09:00:00+01:00");
    const v = clockView(c, t("2025-04-16T09:00:00+02:00"));
    expect(v.overdue).toBe(true);
    expect(v.daysLeft).toBe(-1);
    expect409(() => extendClock(c, t("2025-04-16T09:00:00+02:00"), 2, "late", "regulator"), "RUNNING");
  });

  it("answers 409 with the allowed next states for illegal clock events", () => {
    const err = expect409(
      () => resumeClock(started("2025-01-15T09:00:00+01:00"), t("2025-01-16T09:00:00+01:00")),
      "RUNNING",
    );
    expect(err.extra.allowedNextStates).toEqual(["PAUSED", "RUNNING", "STOPPED"]);
    expect409(() => pauseClock(newClock(), t("2025-01-16T09:00:00+01:00"), "x"), "NOT_STARTED");
    const stopped = stopClock(started("2025-01-15T09:00:00+01:00"), t("2025-02-01T09:00:00+01:00"));
    const e2 = expect409(() => pauseClock(stopped, t("2025-02-02T09:00:00+01:00"), "x"), "STOPPED");
    expect(e2.extra.allowedNextStates).toEqual([]);
    expect409(() => startClock(stopped, t("2025-02-02T09:00:00+01:00")), "STOPPED");
  });

  it("reports the decision time net of pauses and whether the deadline was met", () => {
    let c = started("2025-01-15T09:00:00+01:00");
    c = pauseClock(c, t("2025-02-10T09:00:00+01:00"), "IR", "IR-1");
    c = resumeClock(c, t("2025-02-24T09:00:00+01:00"));
    const met = clockView(stopClock(c, t("2025-04-20T12:00:00+02:00")), t("2025-05-01T09:00:00+02:00"));
    expect(met.state).toBe("STOPPED");
    expect(met.elapsedDays).toBe(95 - 14);
    expect(met.metDeadline).toBe(true);
    expect(met.daysLeft).toBeNull();
    const late = clockView(
      stopClock(started("2025-01-15T09:00:00+01:00"), t("2025-04-16T08:00:00+02:00")),
      t("2025-05-01T09:00:00+02:00"),
    );
    expect(late.metDeadline).toBe(false);
    // stopping a paused clock closes the pause on the decision day
    const paused = pauseClock(
      started("2025-01-15T09:00:00+01:00"),
      t("2025-02-10T09:00:00+01:00"),
      "IR",
      "IR-1",
    );
    const stopped = stopClock(paused, t("2025-02-12T09:00:00+01:00"));
    expect(stopped.pauses[0].toDate).toBe("2025-02-12");
    expect(clockView(stopped, t("2025-03-01T09:00:00+01:00")).pausedDays).toBe(2);
  });

  it("computes the other periods: four weeks, three months, eighteen months", () => {
    expect(periodEnd("2025-01-15", 4, "weeks")).toBe("2025-02-12");
    expect(periodEnd("2025-01-31", 3, "months")).toBe("2025-04-30");
    expect(periodEnd("2024-08-31", 18, "months")).toBe("2026-03-02"); // 28 Feb 2026 is a Saturday
  });
});
