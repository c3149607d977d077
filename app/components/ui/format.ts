import { words } from "./labels";

/**
 * Formatting helpers shared by the views. Everything is formatted in a fixed locale and in UTC,
 * so the server render and the hydrated client agree to the character.
 */

const DATE = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  timeZone: "UTC",
});
const DATE_TIME = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "UTC",
});
const NUMBER = new Intl.NumberFormat("en-GB");

/** "3 Mar 2024"; the raw value when it is not a date */
export function formatDate(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number") return "";
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return DATE.format(d);
}

/** "3 Mar 2024, 14:05 UTC" for full timestamps, plain date for date-only values */
export function formatDateTime(value: unknown): string {
  if (typeof value !== "string" || /^\d{4}-\d{2}-\d{2}$/.test(value)) return formatDate(value);
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return `${DATE_TIME.format(d)} UTC`;
}

export function formatNumber(value: unknown): string {
  return typeof value === "number" && Number.isFinite(value)
    ? NUMBER.format(value)
    : value == null
      ? ""
      : String(value);
}

/** camelCase / snake_case keys as words: "populationCoverage" → "Population coverage" (hyphens kept) */
export const humanize = (key: string) => words(key, /_/g);

/** any property value as display text */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return formatNumber(value);
  if (Array.isArray(value)) return value.map(displayValue).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function isHttpUrl(value: unknown): value is string {
  return typeof value === "string" && /^https?:\/\/[^\s]+$/i.test(value);
}

/** the text cut to `max` characters, "…" included */
export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 3)}…` : text);

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

/** an ISO date-time inside an entry's text ("refused (401), 4 more times since 2026-11-30T03:27:52.933Z") */
const ISO_TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;

/** a text as a person reads it (an audit entry's outcome): its ISO times with their zone ("… since 30 Nov 2026, 03:27 UTC") */
export function timesWithZone(outcome: string): string {
  return outcome.replace(ISO_TIME, (t) => formatDateTime(t));
}
