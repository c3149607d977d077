import { invalidField } from "./field-errors";

/**
 * The syntax of the identifiers the hub passes on to the dataspace services (participant context
 * ids, asset ids, negotiation, transfer and credential ids, DIDs): 1–200 characters of ASCII
 * letters, digits and `. _ : @ % + = ~ -`, starting with a letter or digit. That covers slugs,
 * UUIDs, `urn:uuid:…`, `did:web:host%3Aport:name` and EDC ids, and keeps out path segments
 * (`/`, `..`), control characters, quotes, spaces, brackets and anything that is not ASCII.
 * An id of the wrong syntax is answered 400 before any upstream call.
 */

/** the syntax as one pattern JSON Schema can state (route declarations, the OpenAPI document) */
export const ID_PATTERN = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._:@%+=~-]{0,199}$/;

export const isValidId = (value: string): boolean => ID_PATTERN.test(value);

export const invalidIdMessage = (field: string) =>
  `${field} is not a valid identifier (1-200 characters: letters, digits and . _ : @ % + = ~ -)`;

/** The id, or a 400 naming the field. */
export function checkId(value: string, field: string): string {
  if (!isValidId(value)) throw invalidField(field, invalidIdMessage(field));
  return value;
}

/** An absolute http(s) URL of at most 2,000 characters (e.g. a DSP counter-party address), or a 400. */
export function checkHttpUrl(value: string, field: string): string {
  let ok = value.length <= 2000;
  try {
    ok &&= ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw invalidField(field, `${field} must be an http(s) URL`);
  return value;
}
