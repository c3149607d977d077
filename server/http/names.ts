import { invalidField } from "./field-errors";

/**
 * The syntax of human-readable names that the hub stores and shows (a participant's display name
 * and organisation): 1–120 characters of letters (any script), combining marks, digits, spaces and
 * `. , ' ’ & - / +`, with no `--` and no leading or trailing space. That admits
 * "Universitätsklinikum Nord", "Institut de Recherche Santé" or "St. Mary's & Partners" and keeps out
 * markup (`<script>`), quotes and brackets of query fragments (`"`, `(`, `{`, `;`, `=`, `--`) and
 * control characters.
 */

/** the whole syntax as one pattern (no `--`, no two spaces, no trailing space), as the API document states it */
export const NAME_PATTERN = /^(?!.*--)(?!.* {2})(?!.* $)[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N} .,'’&/+-]{0,119}$/u;

export const invalidNameMessage = (field: string) =>
  `${field} may contain only letters, digits, spaces and . , ' & - / + (1-120 characters)`;

/** The name, or a 400 naming the field. */
export function checkName(value: string, field: string): string {
  if (!NAME_PATTERN.test(value)) throw invalidField(field, invalidNameMessage(field));
  return value;
}
