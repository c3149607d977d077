import type { IncomingMessage, ServerResponse } from "node:http";
import type { RateLimits } from "../../storage/rate-limits";
import { requestPath } from "../../http/node-adapter";
import Provider, {
  type Configuration,
  type CookiesSetOptions,
  type JWKS,
  type KoaContextWithOIDC,
} from "oidc-provider";
import type { Config } from "../../config";
import type { Relational } from "../../storage/relational";
import { CLAIMS_BY_SCOPE, SCOPES, findAccount } from "./account";
import { relationalAdapter, sweepExpired } from "./adapter";
import { loadFirstPartyGrant } from "./grants";
import { messagePage } from "./html";
import { INTERACTION_PATH, interactionRoutes } from "./interactions";
import { cookieKeys, signingKey } from "./keys";
import { completeLogoutWithoutPrompt, logoutSource, postLogoutSuccessSource } from "./logout";
import { providerContextWhileInFlight } from "./request-context";

/** The app's client at the embedded provider. */
export const IDP_CLIENT_ID = "health-dataspace-hub";

/** The path the provider answers under on the app's server: `/idp` and every path below it. */
export const IDP_MOUNT_PATH = "/idp";

const SWEEP_INTERVAL_MS = 15 * 60 * 1000;

export type IdentityProvider = Awaited<ReturnType<typeof createIdentityProvider>>;

/**
 * The embedded development OpenID provider (oidc-provider 9): authorization code + PKCE for the
 * one first-party client, the personas as accounts, state in the relational store.
 * Refuses to run when NODE_ENV=production.
 */
export async function createIdentityProvider(opts: {
  config: Config;
  /** the relational store (server/storage/relational) that keeps the provider's state */
  rel: Relational;
  clientId: string;
  clientSecret: string;
  /**
   * The provider's public address, when it is reached through something else than `${PUBLIC_URL}/idp`
   * (a test puts it behind a fault proxy); its path must be the mount path. Default `${PUBLIC_URL}/idp`.
   */
  issuer?: string;
  /** counts wrong passwords per username (server/http/rate-limits.ts); none: no such limit */
  rateLimits?: Pick<RateLimits, "take" | "giveBack">;
}) {
  const { config, rel, clientId, clientSecret } = opts;
  if (config.env === "production") {
    throw new Error(
      "The embedded identity provider is for development only and refuses to start with NODE_ENV=production; " +
        "set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET to use a real OpenID provider.",
    );
  }

  const issuer = (opts.issuer ?? `${config.publicUrl}${IDP_MOUNT_PATH}`).replace(/\/+$/, "");
  /** path of the provider as the browser sees it (differs from the mount path behind a path prefix) */
  const publicPath = new URL(issuer).pathname.replace(/\/+$/, "");
  const signInUrl = `${config.publicUrl}/auth/signin`;
  const sessionCookie: CookiesSetOptions = { httpOnly: true, sameSite: "lax", path: publicPath };

  const configuration: Configuration = {
    adapter: await relationalAdapter(rel),
    jwks: { keys: [await signingKey(rel)] } as JWKS,
    cookies: {
      // distinct from the app's `app-auth.session-token` and `oidc-state` cookies
      names: { session: "idp_session", interaction: "idp_interaction", resume: "idp_interaction_resume" },
      keys: await cookieKeys(rel),
      long: sessionCookie,
      short: { httpOnly: true, sameSite: "lax" },
    },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        client_name: "Health Dataspace Hub",
        redirect_uris: [`${config.publicUrl}/auth/callback`],
        post_logout_redirect_uris: [signInUrl, `${config.publicUrl}/`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    clientAuthMethods: ["client_secret_basic", "client_secret_post"],
    clientBasedCORS: () => false,
    responseTypes: ["code"],
    pkce: { required: () => true },
    scopes: [...SCOPES],
    claims: Object.fromEntries(
      Object.entries(CLAIMS_BY_SCOPE).map(([scope, claims]) => [scope, [...claims]]),
    ),
    conformIdTokenClaims: false,
    findAccount,
    loadExistingGrant: loadFirstPartyGrant,
    interactions: { url: (_ctx, interaction) => `${publicPath}${INTERACTION_PATH}/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: logoutSource(`${config.publicUrl}/`),
        postLogoutSuccessSource: postLogoutSuccessSource(signInUrl),
      },
    },
    ttl: {
      AccessToken: 60 * 60,
      AuthorizationCode: 60,
      IdToken: 60 * 60,
      Interaction: 10 * 60,
      Session: 8 * 60 * 60,
      Grant: 8 * 60 * 60,
      RefreshToken: 8 * 60 * 60,
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = "html";
      ctx.body = messagePage("Sign-in error", out.error_description ?? out.error, {
        href: signInUrl,
        text: "Back to sign-in",
      });
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.proxy = true;
  provider.use(completeLogoutWithoutPrompt(provider, sessionCookie));

  await sweepExpired(rel);
  const sweeper = setInterval(() => {
    sweepExpired(rel).catch((err: unknown) =>
      console.warn("identity provider: sweeping expired artefacts failed", err),
    );
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  // the provider's async context only while one of its requests is in flight (request-context.ts)
  const inFlight = providerContextWhileInFlight();
  const interactions = interactionRoutes({
    provider,
    mountPath: publicPath,
    restartUrl: signInUrl,
    rateLimits: opts.rateLimits,
  });
  const providerCallback = provider.callback();
  const interactionMount = `${IDP_MOUNT_PATH}${INTERACTION_PATH}`;

  return {
    issuer,
    /**
     * Answers a request whose path is IDP_MOUNT_PATH or below it (`/idp`, `/idp/...`; the caller passes
     * only those): the sign-in pages under /idp/interaction, everything else oidc-provider. Its body must
     * not have been read (the provider and the sign-in form read it themselves). Sets `req.originalUrl`
     * (unless set) and, for the provider, `req.url` to the path below /idp, as express's mounting did.
     */
    handle(req: IncomingMessage, res: ServerResponse) {
      inFlight(req, res, () => {
        const mounted = req as MountedRequest;
        const url = req.url ?? "/";
        mounted.originalUrl ||= url;
        const pathname = requestPath(url);
        const belowInteraction = mountedLength(pathname, interactionMount);
        if (belowInteraction !== undefined) {
          const subPath = pathBelow(pathname, belowInteraction);
          if (interactions(req, res, subPath)) return;
        }
        // the provider as app.use("/idp", provider.callback()) gave it the request: oidc-provider finds
        // its mount path from req.originalUrl minus req.url (falling back to req.baseUrl)
        const removed = mountedLength(pathname, IDP_MOUNT_PATH) ?? 0;
        mounted.baseUrl = url.slice(0, removed).replace(/\/$/, "");
        req.url = pathBelow(url, removed);
        void providerCallback(req, res);
      });
    },
    /** Stops the provider's housekeeping; the store stays open (it belongs to the caller). */
    async close() {
      clearInterval(sweeper);
    },
  };
}

/** a request as express left it to a mounted handler */
type MountedRequest = IncomingMessage & { originalUrl?: string; baseUrl?: string };

/**
 * How much of `pathname` express's `app.use(mount, ...)` took off, or undefined when the mount does
 * not match: `mount` in any case, plus its following slash when that slash ends the path or another
 * follows (`^mount\/?(?=\/|$)`, case-insensitive): `/idp` → 4, `/idp/` → 5, `/idp/x` → 4, `/idp//x` → 5.
 */
function mountedLength(pathname: string, mount: string): number | undefined {
  if (pathname.slice(0, mount.length).toLowerCase() !== mount.toLowerCase()) return undefined;
  const next = pathname[mount.length];
  if (next === undefined) return mount.length;
  if (next !== "/") return undefined;
  const after = pathname[mount.length + 1];
  return after === undefined || after === "/" ? mount.length + 1 : mount.length;
}

/** `url` without its first `removed` characters, starting with a slash (express's trim_prefix) */
function pathBelow(url: string, removed: number): string {
  const rest = url.slice(removed);
  return rest.startsWith("/") ? rest : `/${rest}`;
}
