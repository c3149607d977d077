import { z } from "zod";
import type { AnswerSpec } from "./contract";
import { ID_PATTERN, invalidIdMessage } from "./ids";
import { invalidNameMessage, NAME_PATTERN } from "./names";

/**
 * The building blocks of the route declarations (contract.ts): query fields with the hub's exact 400
 * texts, and answers. Each check is one the JSON Schema export can state (type, pattern, enum), so
 * the document says what the dispatcher refuses.
 */

/**
 * A real day written YYYY-MM-DD (the 29th of February of leap years only), as one pattern: zod's ISO
 * date from the year 100 (`Date.UTC` reads earlier years as 19xx; server/access-body/calendar.test.ts compares it with the
 * round trip through a `Date`). A pattern, so the API document states the rule (the access body's report.ts); also a birth date (the EUDI wallet).
 */
export const CIVIL_DATE_PATTERN = new RegExp(`^(?!00)${z.regexes.date.source.slice(1)}`);
export const isCivilDate = (value: string) => CIVIL_DATE_PATTERN.test(value);
/** what the API document says of a CIVIL_DATE_PATTERN string (`.meta`) */
export const A_DAY = { format: "date", description: "a day that exists, YYYY-MM-DD" };

/** a required, non-blank string; missing, not a string or blank → 400 `text` (the spec's) */
export const requiredText = (text: string) => z.string({ error: text }).regex(/\S/, text);

/** an identifier; `required` is the 400 text when it is missing or blank */
export const idField = (name: string, required?: string) =>
  (required ? requiredText(required) : z.string()).regex(ID_PATTERN, invalidIdMessage(name));

/** an optional identifier: blank counts as absent (the handlers' `presentString`) */
export const optionalId = (name: string) =>
  z
    .string()
    .regex(new RegExp(`^\\s*$|${ID_PATTERN.source}`), invalidIdMessage(name))
    .optional();

/**
 * An absolute http(s) URL that the WHATWG URL parser takes (ids.ts `checkHttpUrl`), as a pattern: a
 * host name whose last label starts with a letter, or an IPv4 address; an optional port; then anything
 * without white space. At most 2,000 characters.
 */
export const HTTP_URL =
  /^[Hh][Tt][Tt][Pp][Ss]?:\/\/(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}|(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*)(?::\d{1,5})?(?:[/?#]\S*)?$/;
export const httpUrlField = (field: string) =>
  z.string().max(2000, `${field} must be an http(s) URL`).regex(HTTP_URL, `${field} must be an http(s) URL`);

/** a human-readable name (names.ts), with its 400 text */
export const nameField = (field: string) => z.string().regex(NAME_PATTERN, invalidNameMessage(field));

/**
 * For the document (`.meta(...)`): at least one (`anyOf`) or exactly one (`oneOf`) of these fields is
 * present and not blank. The schema's own refinement does the check and gives the 400 text; JSON
 * Schema export cannot see a refinement, so the rule is stated with this.
 */
export const presentFields = (kind: "anyOf" | "oneOf", ...fields: string[]) => ({
  [kind]: fields.map((f) => ({ required: [f], properties: { [f]: { type: "string", pattern: "\\S" } } })),
});

/**
 * An optional integer query value within [min, max] (the texts of handler.ts's `intParam`). The range
 * is a pattern (leading zeros allowed, as `Number` reads them), so the document states it too.
 */
export const intQuery = (name: string, min: number, max: number, def?: number) => {
  if (min < 0) throw new Error("intQuery: the range pattern needs min ≥ 0");
  const range = new RegExp(`^(?:${min === 0 ? "-0+|" : ""}0*(?:${integerRange(min, max)}))?$`);
  return z
    .string()
    .regex(/^(-?\d+)?$/, `${name} must be an integer`)
    .regex(range, `${name} must be between ${min} and ${max}`)
    .optional()
    .describe(`integer ${min}–${max}${def === undefined ? "" : `, default ${def}`}`);
};

/** a regex alternative matching the decimal numbers lo..hi (same digit count, no sign) */
function sameLength(lo: string, hi: string): string {
  if (lo === hi) return lo;
  if (lo.length === 1) return `[${lo}-${hi}]`;
  if (lo[0] === hi[0]) return lo[0] + group(sameLength(lo.slice(1), hi.slice(1)));
  const rest = lo.length - 1;
  const parts = [lo[0] + group(sameLength(lo.slice(1), "9".repeat(rest)))];
  const a = Number(lo[0]) + 1;
  const b = Number(hi[0]) - 1;
  if (a <= b) parts.push(`${a === b ? a : `[${a}-${b}]`}\\d{${rest}}`);
  parts.push(hi[0] + group(sameLength("0".repeat(rest), hi.slice(1))));
  return parts.join("|");
}
const group = (s: string) => (s.includes("|") ? `(?:${s})` : s);
/** the decimal numbers min..max (min ≥ 0) as regex alternatives, without leading zeros */
function integerRange(min: number, max: number): string {
  const parts: string[] = [];
  for (let digits = String(min).length; digits <= String(max).length; digits++) {
    const lo = Math.max(min, digits === 1 ? 0 : 10 ** (digits - 1));
    const hi = Math.min(max, 10 ** digits - 1);
    if (lo <= hi) parts.push(sameLength(String(lo), String(hi)));
  }
  return parts.join("|");
}

/** an optional free string (the handler reads it as it is) */
export const optionalText = (description?: string) =>
  description ? z.string().optional().describe(description) : z.string().optional();

/** an object with at least these keys (any values), more allowed: an answer whose fields are not all stated */
export const has = (...keys: string[]) =>
  z.looseObject(Object.fromEntries(keys.map((k) => [k, z.unknown()])));

/** an array of objects with at least these keys */
export const listOf = (...keys: string[]) => z.array(has(...keys));

export const ok = (schema: z.ZodType, description = "OK"): AnswerSpec => ({ description, schema });
export const created = (schema: z.ZodType, description = "Created"): AnswerSpec => ({ description, schema });
export const NO_CONTENT: AnswerSpec = { description: "Done; no body" };
/**
 * The 400 answer of an operation whose handler refuses for reasons no schema can hold (a dataset that
 * must exist, the caller's own organisation): its refusal texts quoted, `<name>` for a value in them.
 */
export const refusals = (...texts: string[]): AnswerSpec => ({
  description: `Bad input (query, path parameter or body); nothing was changed. Also refused: ${texts.map((t) => `\`${t}\``).join("; ")}`,
});
/** an error answer (the Error schema) the handler itself gives */
export const fails = (description: string): AnswerSpec => ({ description });
