/**
 * Calendar arithmetic for the statutory clocks: civil dates in Europe/Berlin (the access body's
 * zone), the period rules of Regulation (EEC, Euratom) No 1182/71 and Germany's nationwide public
 * holidays. Web standards only: every time-zone conversion goes through Intl.DateTimeFormat.
 *
 * Decisions (see also periods.ts):
 * - A civil date is a string "YYYY-MM-DD". Date arithmetic on civil dates uses UTC midnights, so it
 *   never sees a daylight-saving change; only the conversion between an instant and the Berlin
 *   civil date (and back) looks at the zone.
 * - Periods expressed in months follow Regulation 1182/71 Art. 3: the day of the event is not
 *   counted (Art. 3(1)); the period ends with the expiry of the last hour of the day in the last
 *   month that has the same date as the day of the event, or of the last day of that month when it
 *   has no such date (Art. 3(2)(c)); a period ending on a Saturday, Sunday or public holiday ends
 *   with the expiry of the following working day (Art. 3(4)). Those three rules were checked against
 *   quotations of the regulation's text.
 * - Public holidays are the nine nationwide German holidays. Holidays of a single Land (Epiphany,
 *   Corpus Christi, Reformation Day, ...) are not modelled: the access body of this demo, MedReg DE,
 *   is a federal body.
 */
import { isCivilDate } from "../http/contract-fields";

const TIME_ZONE = "Europe/Berlin";
const DAY_MS = 86_400_000;

const dateFormatter = new Intl.DateTimeFormat("en-CA", {
  timeZone: TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

const partsFormatter = new Intl.DateTimeFormat("en-US", {
  timeZone: TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

const CIVIL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parse(date: string): { y: number; m: number; d: number } {
  const m = CIVIL_DATE.exec(date);
  if (!m || !isCivilDate(date)) throw new Error(`not a civil date (YYYY-MM-DD): ${date}`);
  return { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
}

const utcMidnight = (date: string) => {
  const { y, m, d } = parse(date);
  return Date.UTC(y, m - 1, d);
};
const fromUtcMidnight = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * The Berlin civil date of an instant. Remembered for the last minute asked: Berlin's offset from UTC is
 * whole hours, so its date changes only on a minute's boundary, and the work queue asks on every request.
 */
export function berlinDate(instant: Date): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  if (minute !== lastMinute || lastDate === undefined) {
    lastDate = dateFormatter.format(instant);
    lastMinute = minute;
  }
  return lastDate;
}
let lastMinute = NaN;
let lastDate: string | undefined;

/** Minutes the Berlin wall clock is ahead of UTC at an instant (60 in winter, 120 in summer). */
function berlinOffsetMinutes(instant: Date): number {
  const p = Object.fromEntries(partsFormatter.formatToParts(instant).map((x) => [x.type, x.value]));
  const wall = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** The instant at which a Berlin civil date begins (00:00 local; midnight is never in a DST gap in Berlin). */
export function startOfBerlinDay(date: string): Date {
  const t = utcMidnight(date);
  const guess = t - berlinOffsetMinutes(new Date(t)) * 60_000;
  return new Date(t - berlinOffsetMinutes(new Date(guess)) * 60_000);
}

/** The last millisecond of a Berlin civil date: a period "ends with the expiry of the last hour" of it. */
export function endOfBerlinDay(date: string): Date {
  return new Date(startOfBerlinDay(addDays(date, 1)).getTime() - 1);
}

export function addDays(date: string, days: number): string {
  return fromUtcMidnight(utcMidnight(date) + days * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnight(to) - utcMidnight(from)) / DAY_MS);
}

/**
 * The same date `months` calendar months later, clamped to the last day of the target month
 * (Regulation 1182/71 Art. 3(2)(c)): 31 Jan + 1 month = 28/29 Feb; 30 Nov + 3 months = 28/29 Feb.
 */
export function addMonths(date: string, months: number): string {
  const { y, m, d } = parse(date);
  const index = y * 12 + (m - 1) + months;
  const ty = Math.floor(index / 12);
  const tm = (index % 12) + 1;
  const td = Math.min(d, new Date(Date.UTC(ty, tm, 0)).getUTCDate());
  return `${String(ty).padStart(4, "0")}-${String(tm).padStart(2, "0")}-${String(td).padStart(2, "0")}`;
}

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The nine public holidays observed in every German Land. */
export function germanNationwideHolidays(year: number): string[] {
  const easter = easterSunday(year);
  const fixed = ["01-01", "05-01", "10-03", "12-25", "12-26"].map((md) => `${year}-${md}`);
  const moving = [-2, 1, 39, 50].map((offset) => addDays(easter, offset)); // Good Friday, Easter Monday, Ascension, Whit Monday
  return [...fixed, ...moving].sort();
}

export function isWorkingDay(date: string): boolean {
  const wd = new Date(utcMidnight(date)).getUTCDay(); // 0 = Sunday ... 6 = Saturday
  return wd !== 0 && wd !== 6 && !germanNationwideHolidays(parse(date).y).includes(date);
}

/** Regulation 1182/71 Art. 3(4): a period whose last day is not a working day ends on the next working day. */
export function rollToWorkingDay(date: string): string {
  let d = date;
  while (!isWorkingDay(d)) d = addDays(d, 1);
  return d;
}
