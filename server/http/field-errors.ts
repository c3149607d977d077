import { ApiError } from "./errors";

/**
 * Validation errors that name the fields they are about, so a form can mark them without reading
 * the message. The API still answers `{ error }` with the spec's exact text: the field list is not
 * part of the JSON body (errors.ts renders message, detail and extra only); it travels on the
 * thrown error to in-process callers such as the views' actions.
 */
export interface FieldError {
  /** the field's path in the request body: "license", "conformsTo.0" */
  path: string;
  message: string;
}

export class FieldValidationError extends ApiError {
  constructor(
    status: number,
    message: string,
    public readonly fields: readonly FieldError[],
    extra?: Record<string, unknown>,
  ) {
    super(status, message, undefined, extra);
  }
}

/** a 400 (or other status) whose message is the API's text and whose fields say where */
export const invalidFields = (
  message: string,
  fields: readonly FieldError[],
  status = 400,
  extra?: Record<string, unknown>,
) => new FieldValidationError(status, message, fields, extra);

/** zod issues (path + message) as field errors */
export const fieldErrorsOfIssues = (
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): FieldError[] => issues.map((i) => ({ path: i.path.map(String).join(".") || "body", message: i.message }));

/**
 * The field errors an error carries, recognised structurally (like isApiError) so they survive
 * separately bundled copies of this module; none when it carries none.
 */
export function fieldErrorsOf(e: unknown): FieldError[] {
  const fields = (e as { fields?: unknown } | null)?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.filter(
    (f): f is FieldError =>
      typeof f === "object" && f !== null && typeof f.path === "string" && typeof f.message === "string",
  );
}

/** a 400 about one field, whose message is the API's text */
export const invalidField = (path: string, message: string) =>
  new FieldValidationError(400, message, [{ path, message }]);

/**
 * The API's text (e.g. the spec's "X and Y are required") with one "Required" field error per
 * falsy value, for the services' `if (!a || !b) throw missingFields({ a, b }, TEXT)`.
 */
export function missingFields(values: Record<string, unknown>, message: string): FieldValidationError {
  return invalidFields(
    message,
    Object.keys(values)
      .filter((k) => !values[k])
      .map((path) => ({ path, message: "Required" })),
  );
}

/** A form's view of field errors: the form field (the path's first segment) and its first message. */
export interface FormFieldError {
  field: string;
  message: string;
}

/** the field errors an error carries, one per form field ("conformsTo.0" → "conformsTo") */
export function formFieldErrorsOf(e: unknown): FormFieldError[] {
  const out: FormFieldError[] = [];
  for (const f of fieldErrorsOf(e)) {
    const field = f.path.split(".")[0];
    if (!out.some((o) => o.field === field)) out.push({ field, message: f.message });
  }
  return out;
}
