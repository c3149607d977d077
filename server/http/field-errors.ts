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
  ) {
    super(status, message);
  }
}

/** a 400 (or other status) whose message is the API's text and whose fields say where */
export const invalidFields = (message: string, fields: readonly FieldError[], status = 400) =>
  new FieldValidationError(status, message, fields);

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
