import { z } from "zod";
import type { AnswerSpec } from "./contract";
import { invalidIdMessage } from "./ids";
import { invalidNameMessage, NAME_PATTERN } from "./names";

/**
 * The building blocks of the route declarations (contract.ts): query fields with the hub's exact 400
 * texts, and answers. Each check is one the JSON Schema export can state (type, pattern, enum), so
 * the document says what the dispatcher refuses.
 */

/** a required, non-blank string; missing, not a string or blank → 400 `text` (the spec's) */
export const requiredText = (text: string) => z.string({ error: text }).regex(/\S/, text);

/** the identifier syntax of ids.ts (1–200 characters, no `..`), as one pattern JSON Schema can state */
export const ID_PATTERN = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._:@%+=~-]{0,199}$/;

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

/** an optional integer query value within [min, max] (the texts of handler.ts's `intParam`) */
export const intQuery = (name: string, min: number, max: number, def?: number) =>
  z
    .string()
    .regex(/^(-?\d+)?$/, `${name} must be an integer`)
    .refine((v) => v === "" || (Number(v) >= min && Number(v) <= max), {
      message: `${name} must be between ${min} and ${max}`,
    })
    .optional()
    .describe(`integer ${min}–${max}${def === undefined ? "" : `, default ${def}`}`);

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
