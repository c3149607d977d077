import { redirect, type AppLoadContext } from "@remix-run/node";
import type { Role } from "../server/auth/personas";
import type { SessionUser } from "../server/auth/user";

/** Guards for views (Epic Stack style): they throw Responses. */

export const forbidden = (message = "You do not have a role that may open this page.") =>
  new Response(message, { status: 403, statusText: "Forbidden" });
export async function getUser(request: Request, context: AppLoadContext): Promise<SessionUser | null> {
  return context.services.sessions.userFromRequest(request);
}

export async function requireUser(request: Request, context: AppLoadContext): Promise<SessionUser> {
  const user = await getUser(request, context);
  if (!user) {
    const url = new URL(request.url);
    throw redirect(`/auth/signin?returnTo=${encodeURIComponent(url.pathname + url.search)}`);
  }
  return user;
}

export async function requireRole(
  request: Request,
  context: AppLoadContext,
  roles: readonly Role[],
): Promise<SessionUser> {
  const user = await requireUser(request, context);
  if (!roles.some((r) => user.roles.includes(r))) throw forbidden();
  return user;
}
