/**
 * Office hours of the hosted stack (DESIGN.md "Modes"; api-spec.md sections 1.4 and 8).
 * Web standards only: all time-zone arithmetic goes through Intl.DateTimeFormat.
 *
 * Decisions:
 * - Grammar of OFFICE_HOURS: comma-separated groups `<days> <HH:MM>-<HH:MM>`, then one IANA time zone as
 *   the last token, e.g. `Mon-Thu 07:00-20:00, Fri 07:00-16:00 Europe/Berlin`. Days are Mon..Sun (any
 *   case), a single day or a range; ranges may wrap (`Fri-Mon` = Fri, Sat, Sun, Mon). Several groups may
 *   name the same day (split shifts such as `Mon 07:00-12:00, Mon 13:00-18:00`).
 * - Windows are local wall-clock times, closing time excluded (07:00 is open, 20:00 is closed). `24:00`
 *   is accepted as a closing time (end of day). Overnight windows are not supported: the closing time
 *   must be after the opening time; split them at midnight instead.
 * - The zone is required and stored under its canonical name (`europe/berlin` -> `Europe/Berlin`).
 * - No hours (OFFICE_HOURS unset) means open all day every day, except on hold days, which are then
 *   local dates in Europe/Berlin (api-spec section 8 names that zone for the hosted stack).
 * - Holds are local dates (YYYY-MM-DD) in the hours' zone; they are validated by the config, here a
 *   malformed entry simply never matches. On a hold day the reason is "hold" all day long, also outside
 *   the hours.
 * - The next opening is the first instant after now at which the service is open. Wall times repeated
 *   when the clocks go back are both candidates; an opening time that does not exist because the clocks
 *   go forward opens at the transition, the first valid instant after it. The search covers 400 days;
 *   beyond that (or with nothing ever open) it is null, and Retry-After then suggests one day.
 */

export const DEFAULT_TIME_ZONE = "Europe/Berlin";

/** One opening window on one weekday; minutes since local midnight, `close` excluded. */
export interface OfficeWindow {
  /** 0 = Sunday ... 6 = Saturday (as Date.prototype.getUTCDay) */
  day: number;
  open: number;
  close: number;
}

export interface OfficeHours {
  timeZone: string;
  windows: readonly OfficeWindow[];
}

export type OfficeStatus =
  | { open: true }
  | { open: false; reason: "outside-hours" | "hold"; nextOpening: Date | null; retryAfterSeconds: number };

export type OfficeClosed = Extract<OfficeStatus, { open: false }>;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const SEARCH_DAYS = 400;
const RETRY_WHEN_UNKNOWN_SECONDS = 24 * 60 * 60;
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

export function parseOfficeHours(spec: string): OfficeHours {
  const tokens = spec.trim().split(/\s+/);
  const zoneToken = tokens.pop() ?? "";
  if (tokens.length === 0) {
    throw new Error(
      `"${spec.trim()}" needs days, a time range and a time zone, e.g. "Mon-Fri 07:00-20:00 Europe/Berlin"`,
    );
  }
  const timeZone = canonicalTimeZone(zoneToken);
  const windows = tokens
    .join(" ")
    .split(",")
    .flatMap((group) => {
      if (!group.trim()) throw new Error(`"${spec.trim()}" has an empty entry between commas`);
      return parseGroup(group.trim());
    });
  return { timeZone, windows };
}

function canonicalTimeZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new Error(`the last part must be an IANA time zone such as Europe/Berlin, got "${zone}"`);
  }
}

function parseGroup(group: string): OfficeWindow[] {
  const parts = group.split(" ");
  if (parts.length !== 2) {
    throw new Error(`"${group}" must be days and a time range, e.g. "Mon-Fri 07:00-20:00"`);
  }
  const [daysPart, timesPart] = parts;
  const days = parseDays(daysPart, group);
  const times = /^(\d{1,2}:\d{2})-(\d{1,2}:\d{2})$/.exec(timesPart);
  if (!times) throw new Error(`"${timesPart}" in "${group}" is not a time range like 07:00-20:00`);
  const open = parseTime(times[1], group);
  const close = parseTime(times[2], group);
  if (open === 24 * 60) throw new Error(`opening time 24:00 in "${group}" is not a time of day`);
  if (close <= open) {
    throw new Error(
      `closing time ${times[2]} in "${group}" must be after opening time ${times[1]} ` +
        `(overnight windows are not supported; split them at midnight, e.g. "Mon 22:00-24:00, Tue 00:00-06:00")`,
    );
  }
  return days.map((day) => ({ day, open, close }));
}

function parseDays(text: string, group: string): number[] {
  const [first, last, ...rest] = text.split("-").map((name) => {
    const day = DAY_NAMES.indexOf(name.toLowerCase());
    if (day < 0)
      throw new Error(`unknown day "${name}" in "${group}" (use Mon, Tue, Wed, Thu, Fri, Sat, Sun)`);
    return day;
  });
  if (rest.length > 0) throw new Error(`"${text}" in "${group}" must be one day or a range like Mon-Fri`);
  if (last === undefined) return [first];
  if (last === first) throw new Error(`the day range "${text}" in "${group}" must name two different days`);
  const days = [first];
  for (let day = first; day !== last;) {
    day = (day + 1) % 7;
    days.push(day);
  }
  return days;
}

/** HH:MM -> minutes since midnight; 24:00 allowed (as a closing time). */
function parseTime(text: string, group: string): number {
  const [hours, minutes] = text.split(":").map(Number);
  if (hours > 24 || minutes > 59 || (hours === 24 && minutes !== 0)) {
    throw new Error(`"${text}" in "${group}" is not a time between 00:00 and 24:00`);
  }
  return hours * 60 + minutes;
}

/** No OFFICE_HOURS: open around the clock, holds counted in Europe/Berlin. */
const ALWAYS: OfficeHours = {
  timeZone: DEFAULT_TIME_ZONE,
  windows: DAY_NAMES.map((_, day) => ({ day, open: 0, close: 24 * 60 })),
};

export function officeStatus(hours: OfficeHours | undefined, holds: string[], now: Date): OfficeStatus {
  const schedule = hours ?? ALWAYS;
  const holdSet = new Set(holds);
  if (isOpenAt(schedule, holdSet, now.getTime())) return { open: true };
  const today = isoDate(localDay(wallClock(now.getTime(), schedule.timeZone)));
  const nextOpening = findNextOpening(schedule, holdSet, now.getTime());
  return {
    open: false,
    reason: holdSet.has(today) ? "hold" : "outside-hours",
    nextOpening: nextOpening === null ? null : new Date(nextOpening),
    retryAfterSeconds:
      nextOpening === null ? RETRY_WHEN_UNKNOWN_SECONDS : Math.ceil((nextOpening - now.getTime()) / 1000),
  };
}

/** e.g. "Monday, 23 November 2026, 07:00 (Europe/Berlin)" */
export function formatOpening(date: Date, timeZone: string): string {
  const day = new Intl.DateTimeFormat("en-GB", { timeZone, dateStyle: "full" }).format(date);
  const time = new Intl.DateTimeFormat("en-GB", { timeZone, timeStyle: "short" }).format(date);
  return `${day}, ${time} (${timeZone})`;
}

function isOpenAt(hours: OfficeHours, holds: Set<string>, instant: number): boolean {
  const wall = wallClock(instant, hours.timeZone);
  const day = localDay(wall);
  if (holds.has(isoDate(day))) return false;
  const sinceMidnight = wall - day * DAY;
  const weekday = new Date(day * DAY).getUTCDay();
  return hours.windows.some(
    (w) => w.day === weekday && w.open * MINUTE <= sinceMidnight && sinceMidnight < w.close * MINUTE,
  );
}

/**
 * The service can only become open at an instant whose wall time is an opening time, or at a UTC-offset
 * transition (the clocks jump into a window). Walk forward in steps of 24 hours (zones change their
 * offset at most once in that time), collect the candidates inside each step and return the first one
 * at which the service is open.
 */
function findNextOpening(hours: OfficeHours, holds: Set<string>, now: number): number | null {
  const zone = hours.timeZone;
  for (let start = now; start < now + SEARCH_DAYS * DAY; start += DAY) {
    const end = start + DAY;
    const candidates: number[] = [];
    const transition = offsetTransition(start, end, zone);
    if (transition !== null) candidates.push(transition);
    // local days that can occur in (start, end], with a margin for clocks going back across midnight
    for (let day = localDay(wallClock(start, zone)) - 1; day <= localDay(wallClock(end, zone)) + 1; day++) {
      const weekday = new Date(day * DAY).getUTCDay();
      for (const w of hours.windows) {
        if (w.day === weekday) candidates.push(...instantsOfWallTime(day * DAY + w.open * MINUTE, zone));
      }
    }
    const opening = candidates
      .filter((t) => t > start && t <= end)
      .sort((a, b) => a - b)
      .find((t) => isOpenAt(hours, holds, t));
    if (opening !== undefined) return opening;
  }
  return null;
}

/** The instants whose local wall time is `wall`: one, two (clocks go back) or none (clocks go forward). */
function instantsOfWallTime(wall: number, zone: string): number[] {
  const offsets = new Set([offsetAt(wall - DAY, zone), offsetAt(wall + DAY, zone)]);
  return [...offsets].map((offset) => wall - offset).filter((t) => wallClock(t, zone) === wall);
}

/** The first instant in (from, to] with a different UTC offset than `from`, to the minute; null if none. */
function offsetTransition(from: number, to: number, zone: string): number | null {
  const before = offsetAt(from, zone);
  if (offsetAt(to, zone) === before) return null;
  let lo = Math.floor(from / MINUTE);
  let hi = Math.floor(to / MINUTE);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid * MINUTE, zone) === before) lo = mid;
    else hi = mid;
  }
  return hi * MINUTE;
}

function offsetAt(instant: number, zone: string): number {
  return wallClock(instant, zone) - Math.floor(instant / 1000) * 1000;
}

/** The local wall time of `instant` in `zone`, as milliseconds of a UTC calendar (second precision). */
function wallClock(instant: number, zone: string): number {
  const parts = wallFormatter(zone).formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Days since 1970-01-01 of a wall time. */
function localDay(wall: number): number {
  return Math.floor(wall / DAY);
}

function isoDate(day: number): string {
  return new Date(day * DAY).toISOString().slice(0, 10);
}
