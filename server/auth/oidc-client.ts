import { createHmac } from "node:crypto";
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTVerifyGetKey } from "jose";
import { Authenticator } from "remix-auth";
import { OAuth2Strategy } from "remix-auth-oauth2";
import { z } from "zod";
import { sameSecret } from "../config/same-secret";
import { cappedJson, cappedText } from "../http/limits";
import { idTokenClaims, userFromClaims } from "./claims";
import {
  beforeDeadline,
  keysBeforeDeadline,
  ProviderUnavailableError,
  providerUnavailable,
  refreshSession,
  requestTokens,
  revokeRefreshToken,
} from "./provider-calls";
import { readCookie, type ProviderVerdict, type SessionStore } from "./sessions";
import { safeRedirect } from "./safe-redirect";
import type { SessionUser } from "./user";

/**
 * The app as an OpenID relying party: authorization code + PKCE through remix-auth-oauth2,
 * state checked by the strategy, and the ID token verified here (signature via JWKS, issuer,
 * audience, expiry and nonce). The nonce is an HMAC of the state, so it needs no storage; the
 * strategy's state cookie is signed with the same secret, so a forged one is refused before any
 * token request.
 * Discovery is lazy and retried, so the app starts before its provider answers.
 *
 * Every step of the sign-in (start, callback, logout) has one deadline of UPSTREAM_TIMEOUT_MS for
 * all its calls to the provider (discovery, token, signing keys: provider-calls.ts); a provider that
 * is away, slow or answers nonsense sends the user back to the sign-in page with a message
 * (docs/decisions/0018-identity-provider-time-outs.md).
 */

const ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"];
const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";

const UNREACHABLE = "The identity provider is not reachable. Try again in a moment.";
/** a verified sign-in whose token names none of the hub's roles: no session, this message instead */
export const NO_ROLE =
  "You are signed in at the identity provider, but your account has no role in the Health Dataspace Hub. Ask your administrator to grant one.";

export const STATE_COOKIE = "app-auth.oidc-state";
export const RETURN_COOKIE = "app-auth.return-to";

const discoverySchema = z.object({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  end_session_endpoint: z.url().optional(),
  revocation_endpoint: z.url().optional(),
});
type Discovery = z.infer<typeof discoverySchema>;

/** what a verified sign-in gives: the user, its ID token and the provider's refresh token (if any) */
interface SignedIn {
  user: SessionUser;
  idToken: string;
  refreshToken: string | undefined;
}

export interface OidcOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  publicUrl: string;
  secret: string;
  timeoutMs: number;
  /** rewrites a provider URL for server-to-server calls (the embedded provider is reached on loopback) */
  internalUrl?: (url: string) => string;
}

export type OidcClient = ReturnType<typeof createOidcClient>;

export function createOidcClient(opts: OidcOptions, sessions: SessionStore) {
  const secure = opts.publicUrl.startsWith("https:");
  const internal = opts.internalUrl ?? ((u: string) => u);
  const redirectURI = `${opts.publicUrl}/auth/callback`;
  let discovery: Promise<Discovery> | null = null;
  /** the provider's signing keys, fetched from the discovery document's `jwks_uri` they were made for */
  let jwks: { uri: string; keys: JWTVerifyGetKey } | null = null;

  const forwardedFor = (url: string): Record<string, string> => {
    if (internal(url) === url) return {};
    const u = new URL(url);
    return { "X-Forwarded-Host": u.host, "X-Forwarded-Proto": u.protocol.replace(":", "") };
  };
  const nonceFor = (state: string) =>
    createHmac("sha256", opts.secret).update(`nonce:${state}`).digest("base64url");

  /** the discovery document, its body read within `timeoutMs` too */
  async function fetchDiscovery(timeoutMs: number): Promise<Discovery> {
    const url = `${opts.issuer}/.well-known/openid-configuration`;
    const res = await fetch(internal(url), {
      // reached on loopback, the provider must still describe itself with its public address
      headers: { Accept: "application/json", ...forwardedFor(url) },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new ProviderUnavailableError(`discovery answered ${res.status}`);
    const parsed = discoverySchema.safeParse(await cappedJson(res));
    if (!parsed.success) throw new ProviderUnavailableError("discovery document is not valid");
    // OpenID Connect Discovery 1.0, 4.3: the document's issuer is the one it was fetched for (a trailing "/" aside)
    if (parsed.data.issuer.replace(/\/$/, "") !== opts.issuer.replace(/\/$/, ""))
      throw new ProviderUnavailableError(
        `discovery names the issuer ${parsed.data.issuer}, not the configured ${opts.issuer}`,
      );
    return parsed.data;
  }

  /** the kept discovery document; `fresh`: asked again (and kept anew) */
  function discover(fresh = false): Promise<Discovery> {
    if (!discovery || fresh) {
      const asked = fetchDiscovery(opts.timeoutMs).catch((e: unknown) => {
        throw providerUnavailable("discovery", e);
      });
      discovery = asked;
      // a failed discovery is retried on the next sign-in (unless a later one replaced it already)
      asked.catch(() => {
        if (discovery === asked) discovery = null;
      });
    }
    return discovery;
  }

  class HubStrategy extends OAuth2Strategy<SignedIn> {
    override name = "oidc";
    constructor(
      options: OAuth2Strategy.ConstructorOptions,
      verify: ConstructorParameters<typeof OAuth2Strategy<SignedIn>>[1],
      private readonly deadline: AbortSignal,
    ) {
      super(options, verify);
    }
    /** the token request with the step's deadline (arctic's has no time-out) */
    protected override validateAuthorizationCode(code: string, codeVerifier: string) {
      return requestTokens(
        this.options.tokenEndpoint.toString(),
        { clientId: opts.clientId, clientSecret: opts.clientSecret, redirectURI },
        { code, codeVerifier },
        this.deadline,
      );
    }
    protected override authorizationParams(params: URLSearchParams, request: Request): URLSearchParams {
      const p = new URLSearchParams(params);
      const state = p.get("state");
      if (state) p.set("nonce", nonceFor(state));
      const hint = new URL(request.url).searchParams.get("login_hint");
      if (hint && /^[\w.@-]{1,64}$/.test(hint)) p.set("login_hint", hint);
      return p;
    }
  }

  /** the provider's signing keys, fetched by `deadline` */
  function signingKeys(d: Discovery, deadline: AbortSignal): JWTVerifyGetKey {
    // a discovery document asked afresh may name another key set
    if (jwks?.uri !== d.jwks_uri) {
      const keys = createRemoteJWKSet(new URL(internal(d.jwks_uri)), {
        timeoutDuration: opts.timeoutMs,
        // read no further than UPSTREAM_MAX_BYTES, as every answer of the provider
        [customFetch]: async (url: string, init: RequestInit) => {
          const res = await fetch(url, init);
          return new Response(await cappedText(res), { status: res.status });
        },
      });
      jwks = { uri: d.jwks_uri, keys };
    }
    return keysBeforeDeadline(jwks.keys, deadline);
  }

  /** the strategy for one sign-in step; every provider call it makes ends by `deadline` */
  async function authenticator(deadline: AbortSignal, freshDiscovery = false) {
    const d = await beforeDeadline(discover(freshDiscovery), deadline, "discovery");
    const verifyKey = signingKeys(d, deadline);
    const strategy = new HubStrategy(
      {
        clientId: opts.clientId,
        clientSecret: opts.clientSecret,
        authorizationEndpoint: d.authorization_endpoint,
        tokenEndpoint: internal(d.token_endpoint),
        redirectURI,
        scopes: ["openid", "profile", "email"],
        cookie: {
          name: STATE_COOKIE,
          path: "/auth",
          httpOnly: true,
          sameSite: "Lax",
          maxAge: 300,
          ...(secure ? { secure: true as const } : {}),
        },
      },
      async ({ tokens, request }) => {
        const idToken = tokens.idToken();
        const state = new URL(request.url).searchParams.get("state") ?? "";
        const { payload } = await verifyToken(idToken, d, verifyKey);
        if (payload.nonce !== nonceFor(state)) throw new Error("ID token nonce does not match");
        return {
          user: userFromClaims(idTokenClaims.parse(payload)),
          idToken,
          refreshToken: tokens.hasRefreshToken() ? tokens.refreshToken() : undefined,
        };
      },
      deadline,
    );
    return new Authenticator<SignedIn>().use(strategy, "oidc");
  }

  /** a token signed by the provider for this client (signature, issuer, audience, algorithm) */
  const verifyToken = (token: string, d: Discovery, key: JWTVerifyGetKey, more?: { maxTokenAge: string }) =>
    jwtVerify(token, key, { issuer: d.issuer, audience: opts.clientId, algorithms: ALGORITHMS, ...more });

  /**
   * The strategy's state cookies (`<STATE_COOKIE>:<uuid>=<state and PKCE verifier>`) signed as
   * `<value>.<HMAC>` at sign-in start; at the callback the strategy sees only those whose signature holds
   * (decision 0124).
   */
  const stateMac = (name: string, value: string) =>
    createHmac("sha256", opts.secret).update(`state-cookie:${name}=${value}`).digest("base64url");
  const signStateCookies = (headers: Headers) => {
    const cookies = headers.getSetCookie();
    headers.delete("Set-Cookie");
    for (const c of cookies) {
      const [, name, value, rest] = /^([^=]*)=([^;]*)(.*)$/s.exec(c) ?? [];
      headers.append(
        "Set-Cookie",
        name?.startsWith(STATE_COOKIE) ? `${name}=${value}.${stateMac(name, value)}${rest}` : c,
      );
    }
  };
  const withSignedStateOnly = (request: Request) => {
    const verified = (request.headers.get("cookie") ?? "").split(";").flatMap((pair) => {
      const [, name, value, mac] = /^\s*([^=]+)=(.*)\.([\w-]+)\s*$/.exec(pair) ?? [];
      return name?.startsWith(STATE_COOKIE) && sameSecret(mac, stateMac(name, value))
        ? [`${name}=${value}`]
        : [];
    });
    return new Request(request.url, { headers: { cookie: verified.join("; ") } });
  };

  const cookieAttrs = (maxAge: number) =>
    `Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;

  return {
    issuer: opts.issuer,
    /** starts sign-in: a redirect Response to the provider (with the state cookie) */
    async login(request: Request) {
      const url = new URL(request.url);
      const returnTo = safeRedirect(url.searchParams.get("returnTo"), "/");
      try {
        // discovery asked afresh: a provider that is away is told here, not by the browser's error page
        // at its login address, and a changed document is taken up
        await (await authenticator(AbortSignal.timeout(opts.timeoutMs), true)).authenticate("oidc", request);
      } catch (e) {
        if (e instanceof Response) {
          const headers = new Headers(e.headers);
          signStateCookies(headers);
          headers.append(
            "Set-Cookie",
            `${RETURN_COOKIE}=${encodeURIComponent(returnTo)}; ${cookieAttrs(300)}`,
          );
          return new Response(null, { status: e.status, headers });
        }
        console.warn("[auth] sign-in could not start:", e instanceof Error ? e.message : e);
        return signinError(UNREACHABLE);
      }
      return signinError("Sign-in did not start.");
    },
    /** completes sign-in: verifies everything, creates the session, redirects to returnTo */
    async callback(request: Request) {
      let result: SignedIn;
      try {
        result = await (
          await authenticator(AbortSignal.timeout(opts.timeoutMs))
        ).authenticate("oidc", withSignedStateOnly(request));
      } catch (e) {
        if (e instanceof Response) return e;
        if (e instanceof ProviderUnavailableError) {
          console.warn("[auth] sign-in could not finish, identity provider unavailable:", e.message);
          return signinError(UNREACHABLE);
        }
        console.warn("[auth] sign-in refused:", e instanceof Error ? e.message : e);
        return signinError("Sign-in failed. Please start again.");
      }
      if (result.user.roles.length === 0) {
        console.warn(`[auth] sign-in of ${result.user.username} refused: no role of the hub in the ID token`);
        return signinError(NO_ROLE);
      }
      const returnTo = safeRedirect(readCookie(request.headers.get("cookie"), RETURN_COOKIE), "/");
      // a session this browser still holds ends here: a sign-in replaces it, on the server too
      await sessions.destroy(request);
      const { setCookie } = await sessions.create(result.user, result.idToken, {
        refreshToken: result.refreshToken,
      });
      const headers = new Headers({ Location: returnTo });
      headers.append("Set-Cookie", setCookie);
      // the strategy names each state cookie `<STATE_COOKIE>:<uuid>`, one per sign-in started: all end here
      for (const name of (request.headers.get("cookie") ?? "").split(";").map((c) => c.split("=")[0].trim()))
        if (name.startsWith(STATE_COOKIE)) headers.append("Set-Cookie", `${name}=; ${cookieAttrs(0)}`);
      headers.append("Set-Cookie", `${RETURN_COOKIE}=; ${cookieAttrs(0)}`);
      return new Response(null, { status: 302, headers });
    },
    /**
     * Ends the app session and the provider session: its refresh token revoked from here (a browser
     * that does not follow the redirect still leaves no provider session behind), then the browser
     * sent to the provider's end-session endpoint.
     */
    async logout(request: Request) {
      const { record, refreshToken, setCookie } = await sessions.destroy(request);
      let location = "/auth/signin";
      try {
        const deadline = AbortSignal.timeout(opts.timeoutMs);
        const d = await beforeDeadline(discover(), deadline, "discovery");
        if (refreshToken && d.revocation_endpoint) {
          const client = { clientId: opts.clientId, clientSecret: opts.clientSecret };
          await revokeRefreshToken(internal(d.revocation_endpoint), client, refreshToken, deadline).catch(
            (e: unknown) =>
              console.warn(
                "[auth] sign-out could not revoke the provider session:",
                providerUnavailable("revocation", e).message,
              ),
          );
        }
        if (d.end_session_endpoint && record?.idToken) {
          const u = new URL(d.end_session_endpoint);
          u.searchParams.set("id_token_hint", record.idToken);
          u.searchParams.set("post_logout_redirect_uri", `${opts.publicUrl}/auth/signin`);
          u.searchParams.set("client_id", opts.clientId);
          location = u.toString();
        }
      } catch {
        // provider unreachable: the app session is gone all the same
      }
      return new Response(null, { status: 302, headers: { Location: location, "Set-Cookie": setCookie } });
    },
    /**
     * OIDC back-channel logout: the provider posts a signed logout token when a session ends there
     * (sign-out elsewhere, an administrator's revocation); the hub sessions made from it end at once.
     */
    async backchannelLogout(request: Request) {
      const form = await request.formData().catch(() => null);
      const token = form?.get("logout_token");
      if (typeof token !== "string" || token.length === 0)
        return backchannelAnswer(400, "logout_token is required");
      let ended: { sub?: string; sid?: string };
      let seen: { id: string; until: number };
      try {
        const deadline = AbortSignal.timeout(opts.timeoutMs);
        const d = await beforeDeadline(discover(), deadline, "discovery");
        const { payload } = await verifyToken(token, d, signingKeys(d, deadline), {
          maxTokenAge: "5 minutes",
        });
        const events = payload.events as Record<string, unknown> | undefined;
        const sub = typeof payload.sub === "string" ? payload.sub : undefined;
        const sid = typeof payload.sid === "string" ? payload.sid : undefined;
        // OpenID Connect Back-Channel Logout 1.0, 2.4 and 2.6: the event, no nonce, a subject or a session, an id
        if (
          !events ||
          typeof events[BACKCHANNEL_LOGOUT_EVENT] !== "object" ||
          "nonce" in payload ||
          !(sub || sid) ||
          typeof payload.jti !== "string"
        )
          throw new Error("not a logout token");
        ended = { sub, sid };
        // its id is kept for as long as the token would be taken: until it expires or is 5 minutes old
        seen = {
          id: `${d.issuer} ${payload.jti}`,
          until: Math.min(payload.exp ?? Infinity, payload.iat! + 300) * 1000,
        };
      } catch (e) {
        if (e instanceof ProviderUnavailableError) {
          console.warn("[auth] back-channel logout: identity provider unavailable:", e.message);
          return backchannelAnswer(502, "The identity provider is not reachable.");
        }
        console.warn("[auth] back-channel logout refused:", e instanceof Error ? e.message : e);
        return backchannelAnswer(400, "logout_token is not valid");
      }
      const count = await sessions.endProviderSession(ended, seen);
      // 2.6: a logout token already received is refused
      if (count === null) return backchannelAnswer(400, "logout_token was already used");
      console.info(`[auth] back-channel logout ended ${count} session(s)`);
      return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
    },
    /** one refresh-token grant within UPSTREAM_TIMEOUT_MS: the session store's `providerCheck` (sessions.ts) */
    async refreshSession(refreshToken: string): Promise<ProviderVerdict> {
      try {
        const deadline = AbortSignal.timeout(opts.timeoutMs);
        const d = await beforeDeadline(discover(), deadline, "discovery");
        const verdict = await refreshSession(
          internal(d.token_endpoint),
          { clientId: opts.clientId, clientSecret: opts.clientSecret },
          refreshToken,
          deadline,
        );
        if (verdict.state !== "active" || !verdict.idToken) return verdict;
        // the provider's current word on the user (roles, organisation): verified as at sign-in (a
        // refreshed ID token carries no nonce); a token that does not verify says nothing of the session
        const { payload } = await verifyToken(verdict.idToken, d, signingKeys(d, deadline));
        const user = userFromClaims(idTokenClaims.parse(payload));
        if (user.roles.length === 0)
          return { state: "ended", reason: "the user no longer holds any role of the hub" };
        return { ...verdict, user };
      } catch (e) {
        return { state: "unreachable", reason: providerUnavailable("session re-check", e).message };
      }
    },
    /** true when the provider's discovery document answers (not for 200 with garbage or a cut body) */
    probe: (timeoutMs: number) =>
      fetchDiscovery(timeoutMs).then(
        () => true,
        () => false,
      ),
  };
}

/** the back-channel logout's error answer (OpenID Connect Back-Channel Logout 1.0, 2.8) */
function backchannelAnswer(status: number, message: string): Response {
  return new Response(
    JSON.stringify({
      error: status === 400 ? "invalid_request" : "temporarily_unavailable",
      error_description: message,
    }),
    {
      status,
      headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
    },
  );
}

function signinError(message: string): Response {
  return new Response(null, {
    status: 302,
    headers: { Location: `/auth/signin?error=${encodeURIComponent(message)}` },
  });
}
