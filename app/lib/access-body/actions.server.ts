import { isApiError } from "../../../server/http/errors";
import { formFieldErrorsOf, type FormFieldError } from "../../../server/http/field-errors";
import type { AppLoadContext } from "@remix-run/node";
import type { Role } from "../../../server/auth/personas";
import { requireRole } from "../../session.server";
import { shownInPlace, type InPlace, readForm } from "../api-errors.server";

export type { InPlace };

/** What the access body's forms get back from their actions. */
export interface ActionResult {
  ok?: string;
  error?: string;
  /** for an illegal transition (409): the state the record is in and where it may go */
  currentState?: string;
  allowedNextStates?: string[];
  intent?: string;
  /** the fields the service named as wrong (the form marks them) */
  fields?: FormFieldError[];
}

/** Runs a service call for a form; client errors (400–409) come back as a notice, anything else is thrown. */
export async function runAction(
  intent: string,
  fn: () => Promise<unknown>,
  ok: string,
): Promise<InPlace<ActionResult>> {
  try {
    await fn();
    return { ok, intent };
  } catch (e) {
    if (isApiError(e) && e.status >= 400 && e.status < 500) {
      const extra = (e.extra ?? {}) as { currentState?: string; allowedNextStates?: string[] };
      const outcome: ActionResult = {
        error: e.message,
        currentState: extra.currentState,
        allowedNextStates: extra.allowedNextStates,
        intent,
        fields: formFieldErrorsOf(e),
      };
      return shownInPlace(outcome, e.status);
    }
    throw e;
  }
}

/** A form's text fields as a plain object (empty strings dropped). */
export function fields(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === "string" && v.trim() !== "") out[k] = v.trim();
  return out;
}

/** The preamble of the access body's actions: the caller (holding one of `roles`), the service and the form's fields. */
export async function actionForm(request: Request, context: AppLoadContext, roles: readonly Role[]) {
  const user = await requireRole(request, context, roles);
  return { user, ab: context.services.accessBody, f: fields(await readForm(request)) };
}

export const int = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));
