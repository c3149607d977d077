import { redirect, type AppLoadContext } from "@remix-run/node";
import type { Role } from "../server/auth/personas";
import type { SessionUser } from "../server/auth/user";

/** Guards for views (Epic Stack style): they throw Responses. */

/**
 * The session read of a page's request, shared by its loaders: a document request runs the root's
 * loader and each matched route's (three on /graph) side by side, and each used to verify the cookie
 * and read the session row anew. The load context is made once per request (server/app.ts), so it
 * keys the read, with the URL and the cookie: static mode's persona is in the path (/as/<persona>/...),
 * and its export renders every page with one context; a context reused for another URL or another
 * cookie reads again. The entry goes just after the read settles: a later call (the next request of
 * a test that reuses a context, after a sign-out) reads again. Only for GET and HEAD: an action may
 * sign in or out.
 */
const inFlight = new WeakMap<AppLoadContext, { key: string; user: Promise<SessionUser | null> }>();

export function getUser(request: Request, context: AppLoadContext): Promise<SessionUser | null> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return context.services.sessions.userFromRequest(request);
  }
  const key = `${request.url}\n${request.headers.get("cookie") ?? ""}`;
  const known = inFlight.get(context);
  if (known && known.key === key) return known.user;
  const user = context.services.sessions.userFromRequest(request);
  inFlight.set(context, { key, user });
  // kept until the turn of the event loop after it settled: with SQLite the read settles within a
  // few microtasks, before the data strategy has started the last loader
  const settled = () =>
    setImmediate(() => {
      if (inFlight.get(context)?.user === user) inFlight.delete(context);
    });
  user.then(settled, settled);
  return user;
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
  if (!roles.some((r) => user.roles.includes(r))) {
    throw new Response("You do not have a role that may open this page.", {
      status: 403,
      statusText: "Forbidden",
    });
  }
  return user;
}
