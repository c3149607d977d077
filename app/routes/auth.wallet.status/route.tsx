import type { LoaderFunctionArgs } from "@remix-run/node";
import { jsonOrError } from "../../lib/api-errors.server";

/**
 * Resource route polled by the wallet sign-in page: the same answer as GET /api/auth/eudi/status.
 * When the sign-in has completed, the browser that started it (binding cookie) receives the session
 * cookie with this answer, once.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const sid = new URL(request.url).searchParams.get("sid");
  return jsonOrError(() => context.services.eudi.status(sid, request));
}
