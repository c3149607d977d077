import {
  cloneElement,
  isValidElement,
  useEffect,
  useId,
  type ReactElement,
  type ReactNode,
  type RefObject,
} from "react";
import type { FormFieldError } from "../../types";

/**
 * How a form shows the fields a service named as wrong: the action returns the service's
 * structured field errors (`fields`, from formFieldErrorsOf in server/http/field-errors.ts) and
 * the form marks the control (aria-invalid, described by the message) and writes the message next
 * to it. Never derived from the error's prose.
 */

/** the message for one form field, if the action's result names it */
export const fieldMessage = (result: object | null | undefined, name: string) =>
  (result as { fields?: readonly FormFieldError[] } | null | undefined)?.fields?.find((f) => f.field === name)
    ?.message;

/**
 * The control `children` (one element) marked invalid with `message` written below it; unchanged
 * when there is no message. The control's own aria-describedby, if any, is kept.
 */
export function Invalid({ message, children }: { message?: string; children: ReactNode }) {
  const id = `${useId()}-error`;
  if (!message || !isValidElement(children)) return <>{children}</>;
  const control = children as ReactElement<Record<string, unknown>>;
  const own = control.props["aria-describedby"];
  return (
    <>
      {cloneElement(control, {
        "aria-invalid": true,
        "aria-describedby": [own, id].filter(Boolean).join(" "),
      })}
      <span id={id} className="field-error" data-testid={`field-error-${String(control.props.name ?? "")}`}>
        {message}
      </span>
    </>
  );
}

/** the message for one field of the form that posts `intents` (pages with several forms) */
export const intentFieldMessage = (
  result: { intent?: string; fields?: readonly FormFieldError[] } | null | undefined,
  intents: string | readonly string[],
  name: string,
) =>
  result?.intent !== undefined && ([] as string[]).concat(intents).includes(result.intent)
    ? fieldMessage(result, name)
    : undefined;

/**
 * After an action names wrong fields, focus the first control marked invalid inside `ref` (a form);
 * a marked group (fieldset, radio group) hands the focus to its first control.
 */
export function useFocusFirstInvalid(ref: RefObject<HTMLElement | null>, result: unknown) {
  useEffect(() => {
    const fields = (result as { fields?: readonly unknown[] } | null | undefined)?.fields;
    if (!fields?.length || !ref.current) return;
    const marked = ref.current.querySelector<HTMLElement>('[aria-invalid="true"]');
    const control = marked?.matches("input, select, textarea")
      ? marked
      : marked?.querySelector<HTMLElement>("input, select, textarea");
    control?.focus();
  }, [result, ref]);
}
