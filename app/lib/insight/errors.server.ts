import { isApiError } from "../../../server/http/errors";

/** A service's client error (400, 403, 422, 502…) as a message for the view; anything else is rethrown. */
export function clientError(e: unknown): { status: number; message: string; detail: string | null } {
  if (isApiError(e) && e.status >= 400 && e.status !== 500)
    return { status: e.status, message: e.message, detail: e.detail ?? null };
  throw e;
}
