import { z } from "zod";
import type { OidcClient } from "../auth/oidc-client";
import { ROLES } from "../auth/personas";
import { safeRedirect } from "../auth/safe-redirect";
import { SESSION_IDLE_MS, type SessionStore } from "../auth/sessions";
import { json } from "../http/errors";
import type { HandlerContext, HandlerMap } from "../http/handler";

/** The part of the service container these routes use (bound to `Services` in server/api-routes.ts). */
export interface SignInServices {
  oidc: OidcClient;
  sessions: SessionStore;
  /** set when the embedded provider serves sign-in */
  embeddedIdp: object | undefined;
}

/**
 * /api/auth/{...} (spec: the sign-in routes, GET and POST, no session needed), in the shape of a
 * NextAuth-style catch-all so that clients written for one find what they expect:
 *
 * - GET  session      the signed-in user and when the session ends, or {} (200 either way)
 * - GET  providers    how one can sign in: the OpenID provider (Keycloak or the embedded one) and
 *                     the EU Digital Identity Wallet (its own routes under /api/auth/eudi/*)
 * - GET  csrf         {csrfToken: null}: this hub needs none (every state-changing request is
 *                     checked against the hub's origin instead), said so rather than faked
 * - GET/POST signin[/oidc]  303 to the sign-in page, or straight into the OpenID flow, with
 *                     callbackUrl kept as the return address (same-origin paths only)
 * - GET  callback/oidc   303 to the registered redirect URI (/auth/callback), query kept
 * - POST signout      ends the session and answers {url} of the provider's end-session page
 *                     (the JSON form of NextAuth's sign-out)
 * - GET  error        {error} from the query
 * Every answer is JSON; an unknown path answers 404 JSON.
 */

const text = z.string();
/** {url}: where a 303 goes (also in `Location`), or the provider's end-session page after sign-out */
export const goTo = z.object({ url: text });
/** GET /api/auth/:rest*'s 200 answers: session (or {} without one), providers, csrf, error */
export const signInAnswer = z.union([
  z.object({
    user: z.object({
      name: text,
      email: text.nullable(),
      username: text,
      roles: z.array(z.enum(ROLES)),
      organisation: text,
      participantDid: text.nullable(),
    }),
    expires: text.describe("when the session ends unless used again"),
  }),
  z.object({}).describe("session: not signed in"),
  z.object({
    oidc: z.object({
      id: z.literal("oidc"),
      name: text,
      type: z.literal("oidc"),
      issuer: text,
      signinUrl: text,
      callbackUrl: text,
    }),
    "eudi-wallet": z.object({
      id: z.literal("eudi-wallet"),
      name: text,
      type: z.literal("openid4vp"),
      signinUrl: text,
      statusUrl: text,
    }),
  }),
  z.object({ csrfToken: z.null().describe("none needed: cross-origin writes are refused"), note: text }),
  z.object({ error: text.describe("error: the query's error") }),
]);

function redirect(location: string): Response {
  return json({ url: location }, 303, { Location: location });
}

function providers(ctx: HandlerContext<SignInServices>) {
  const issuer = ctx.services.oidc.issuer;
  const keycloak = /\/realms\/[^/]+\/?$/.test(issuer);
  return {
    oidc: {
      id: "oidc",
      name: ctx.services.embeddedIdp
        ? "Development identity provider"
        : keycloak
          ? "Keycloak"
          : "OpenID provider",
      type: "oidc",
      issuer,
      signinUrl: "/api/auth/signin/oidc",
      callbackUrl: "/auth/callback",
    },
    "eudi-wallet": {
      id: "eudi-wallet",
      name: "EU Digital Identity Wallet",
      type: "openid4vp",
      signinUrl: "/api/auth/eudi/start",
      statusUrl: "/api/auth/eudi/status",
    },
  };
}

async function signIn(ctx: HandlerContext<SignInServices>, provider: string | undefined): Promise<Response> {
  const back = safeRedirect(ctx.query.get("callbackUrl") ?? ctx.query.get("returnTo"), "/");
  if (!provider) return redirect(`/auth/signin?returnTo=${encodeURIComponent(back)}`);
  if (provider === "oidc") return redirect(`/auth/login?returnTo=${encodeURIComponent(back)}`);
  if (provider === "eudi-wallet") return redirect(`/auth/wallet?returnTo=${encodeURIComponent(back)}`);
  return json({ error: `Unknown sign-in provider ${provider}: the providers are oidc and eudi-wallet` }, 404);
}

function unknown(ctx: HandlerContext<SignInServices>): Response {
  return json(
    {
      error: `Not found: ${ctx.url.pathname} (sign-in routes: session, providers, csrf, signin, callback, signout, error)`,
    },
    404,
  );
}

export const signInHandlers: HandlerMap<SignInServices> = {
  "GET /api/auth/:rest*": async (ctx) => {
    const [action, provider, ...more] = (ctx.params.rest ?? "").split("/").filter(Boolean);
    // only sign-in and the callback take a provider
    if (more.length || (provider && action !== "signin" && action !== "callback")) return unknown(ctx);
    switch (action) {
      case "session": {
        // the cookie read from the request as it came: no web Request built
        const record = await ctx.services.sessions.read(ctx.head);
        if (!record) return json({});
        const u = record.user;
        const expires = Math.min(record.expiresAt, Date.now() + SESSION_IDLE_MS);
        return json({
          user: {
            name: u.name,
            email: u.email ?? null,
            username: u.username,
            roles: u.roles,
            organisation: u.organisation,
            participantDid: u.participantDid ?? null,
          },
          expires: new Date(expires).toISOString(),
        });
      }
      case "providers":
        return json(providers(ctx));
      case "csrf":
        return json({
          csrfToken: null,
          note: "Not needed: the hub refuses state-changing requests from other origins.",
        });
      case "signin":
        return signIn(ctx, provider);
      case "callback":
        if (provider !== "oidc") return unknown(ctx);
        return redirect(`/auth/callback${ctx.url.search}`);
      case "error":
        return json({ error: ctx.query.get("error") ?? "Sign-in failed" });
      default:
        return unknown(ctx);
    }
  },
  "POST /api/auth/:rest*": async (ctx) => {
    const [action, provider, ...more] = (ctx.params.rest ?? "").split("/").filter(Boolean);
    if (more.length) return unknown(ctx);
    if (action === "signin") return signIn(ctx, provider);
    if (action === "signout" && !provider) {
      const res = await ctx.services.oidc.logout(ctx.request);
      const out = json({ url: res.headers.get("Location") ?? "/auth/signin" });
      for (const c of res.headers.getSetCookie()) out.headers.append("Set-Cookie", c);
      return out;
    }
    return unknown(ctx);
  },
};
