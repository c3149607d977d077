import { data } from "@remix-run/node";
import { isApiError } from "../../server/http/errors";

/**
 * The error model's helpers (server/http) for loaders and actions, behind a `.server` module: Remix's
 * browser build empties `.server` modules, so a route that takes them from here does not ship
 * server/http to the browser (decision 0064).
 */
export { isApiError };
export { fieldErrorsOf, formFieldErrorsOf, missingFields } from "../../server/http/field-errors";

/** for a loader's `.catch`: an unknown record is a missing page (404), not a failure */
export function notFoundPage(e: unknown): never {
  if (isApiError(e) && e.status === 404) throw new Response(e.message, { status: 404 });
  throw e;
}

/**
 * For a resource route a fetcher reads (the graph inspector's): a caller's mistake answered with its own
 * status and `{ error }` (and `extra`), which the view shows in place. `Response.json`, not `data()`: a
 * direct GET of a resource route keeps only a Response's status.
 */
export function errorInPlace(e: { status: number; message: string }, extra: Record<string, unknown> = {}) {
  return Response.json({ error: e.message, ...extra }, { status: e.status });
}

/**
 * The one rule of what a view shows of a failure: a service's ApiError but a 500 (400, 403, 404, 409, 422,
 * 502, 503…) as a message in place; anything else is rethrown, to the error boundary.
 */
export function clientError(e: unknown): { status: number; message: string; detail: string | null } {
  if (isApiError(e) && e.status >= 400 && e.status !== 500)
    return { status: e.status, message: e.message, detail: e.detail ?? null };
  throw e;
}

/** an action's outcome as `shownInPlace` answers it: itself, or itself with the status of the refusal it tells */
export type InPlace<T> = T | ReturnType<typeof data<T>>;

/**
 * An action's outcome the view shows in place, answered with the status of the refusal it tells (401 or 403;
 * any other outcome as it is): a page's refusal is put on record at the edge by its status
 * (server/http/remix-answer.ts `pageRefusal`), as the API's is, so a form that shows a 403 in place must not
 * answer 200. The view gets the same action data either way.
 */
export function shownInPlace<T>(outcome: T, status: number | undefined): InPlace<T> {
  return status === 401 || status === 403 ? data(outcome, { status }) : outcome;
}

/** clientError as a form's outcome (the governance pages' `Outcome`) */
export const failure = (e: unknown) => ({ ok: false as const, message: clientError(e).message });

/** A resource route's failure: an ApiError as `{ error }` with its status, anything else rethrown. */
export function errorJson(e: unknown): Response {
  if (!isApiError(e)) throw e;
  return Response.json({ error: e.message }, { status: e.status, headers: { "Cache-Control": "no-store" } });
}

/** A resource route's JSON answer; ApiErrors keep their status and message, anything else is rethrown. */
export function jsonOrError(run: () => Promise<{ body: unknown; setCookie?: string[] }>): Promise<Response> {
  return run().then(({ body, setCookie }) => {
    const headers = new Headers({ "Cache-Control": "no-store" });
    for (const c of setCookie ?? []) headers.append("Set-Cookie", c);
    return Response.json(body, { headers });
  }, errorJson);
}

/**
 * Every page action's form (never `request.formData()` itself): a field sent more than once is refused 400,
 * which the error boundary shows, rather than the action taking one of its values; `lists` are the fields
 * of many values (a checkbox list).
 */
export async function readForm(request: Request, lists: readonly string[] = []): Promise<FormData> {
  const form = await request.formData();
  const seen = new Set<string>();
  for (const name of form.keys()) {
    if (seen.has(name) && !lists.includes(name))
      throw new Response(`The field “${name.slice(0, 60)}” was sent more than once: it takes one value.`, {
        status: 400,
      });
    seen.add(name);
  }
  return form;
}
