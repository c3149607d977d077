import { findPersona } from "../auth/personas";
import { personaSessionUser } from "../auth/user";
import { SESSION_COOKIE, type SessionRecord, type SessionRequest, type SessionStore } from "../auth/sessions";
import type { SessionUser } from "../auth/user";
import type { OidcClient } from "../auth/oidc-client";
import { safeRedirect } from "../auth/safe-redirect";

/**
 * Personas in static mode. The persona is part of the path: `/as/<username>/...` is the app with
 * the Remix basename `/as/<username>`, so every link, form and fetcher a view renders keeps the
 * persona, and each browser tab keeps its own (a cookie would be shared by all tabs). The same
 * paths work on a plain static file server for the export.
 */

const PERSONA_PATH = /^\/as\/([a-z0-9][a-z0-9_-]*?)(?=\/|\.data$|$)/;

export const personaBasename = (username: string) => `/as/${username}`;

/** the persona a path names (`/as/clinic/catalogue`, `/as/clinic.data`), or null */
export function personaOfPath(pathname: string): string | null {
  return PERSONA_PATH.exec(pathname)?.[1] ?? null;
}

export function userForRequest(request: SessionRequest): SessionUser | null {
  const name = personaOfPath(new URL(request.url).pathname);
  const persona = name ? findPersona(name) : undefined;
  return persona ? personaSessionUser(persona) : null;
}

/** the session store of static mode: the persona in the path is the session */
export function personaSessions(): SessionStore {
  const read = (request: SessionRequest): SessionRecord | null => {
    const user = userForRequest(request);
    return user ? { user, idToken: undefined, createdAt: 0, expiresAt: Number.MAX_SAFE_INTEGER } : null;
  };
  return {
    create() {
      throw new Error("static mode has no sessions: the persona is part of the path (/as/<persona>/...)");
    },
    read: async (request) => read(request),
    userFromRequest: async (request) => read(request)?.user ?? null,
    cachedUser: (request) => read(request)?.user ?? null,
    destroy: async (request) => ({
      record: read(request),
      refreshToken: undefined,
      setCookie: `${SESSION_COOKIE}=; Path=/; Max-Age=0`,
    }),
    endProviderSession: async () => 0,
    purgeExpired: async () => 0,
    // the personas are the only patients, and the audit view knows them
    patientsOf: async () => new Map(),
  };
}

const redirectTo = (location: string) => new Response(null, { status: 302, headers: { Location: location } });

/**
 * Sign-in in static mode is the persona switcher: /auth/login?login_hint=clinic&returnTo=/catalogue
 * goes to /as/clinic/catalogue; without a known hint, and for logout, to the persona chooser.
 */
export function staticSignIn(): OidcClient {
  return {
    issuer: "static mode (persona switcher, no identity provider)",
    async login(request) {
      const url = new URL(request.url);
      const hint = url.searchParams.get("login_hint") ?? "";
      const returnTo = safeRedirect(url.searchParams.get("returnTo"), "/");
      if (findPersona(hint)) return redirectTo(`${personaBasename(hint)}${returnTo}`);
      return redirectTo(`/auth/signin?returnTo=${encodeURIComponent(returnTo)}`);
    },
    async callback() {
      return redirectTo("/auth/signin");
    },
    async logout() {
      return redirectTo("/auth/signin");
    },
    // no provider, no provider sessions
    backchannelLogout: async () => new Response(null, { status: 404 }),
    refreshSession: async () => ({ state: "ended", reason: "static mode has no provider sessions" }),
    probe: async () => true,
  };
}
