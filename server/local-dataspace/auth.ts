import { randomBytes } from "node:crypto";
import { sameSecret } from "../config/same-secret";
import { jwtVerify, SignJWT } from "jose";
import type { LocalContext } from "./context";
import { BareStatus, HttpError, unauthorized, type LocalRequest, type Router } from "./http";

/**
 * How the local dataspace's APIs authenticate, as the real services do: its OAuth2 client-credentials
 * token endpoint and the bearer check of its management and tenant-manager APIs (a participant-scoped
 * connector behind Keycloak); the super-user's API key (`x-api-key`) on its issuer admin and identity
 * APIs, as EDC IdentityHub / IssuerService 0.15.1 take it (decision 0114).
 */

export const TOKEN_ISSUER = "local-dataspace";
export const TOKEN_AUDIENCE = "local-dataspace-apis";
const TOKEN_LIFETIME_SECONDS = 300;

export function loadOrCreateClient(ctx: LocalContext) {
  let secret = ctx.store.setting("client-secret");
  if (!secret) {
    secret = randomBytes(32).toString("base64url");
    ctx.store.setSetting("client-secret", secret);
  }
  return { clientId: "health-dataspace-hub", clientSecret: secret };
}

function basicCredentials(req: LocalRequest): { id: string; secret: string } | undefined {
  const h = String(req.headers.authorization ?? "");
  if (!h.startsWith("Basic ")) return undefined;
  const [id, ...rest] = Buffer.from(h.slice(6), "base64").toString("utf8").split(":");
  return { id: decodeURIComponent(id ?? ""), secret: decodeURIComponent(rest.join(":")) };
}

export function registerTokenEndpoint(
  router: Router,
  ctx: LocalContext,
  client: ReturnType<typeof loadOrCreateClient>,
): void {
  router.add(
    "POST",
    "/oauth2/token",
    async (req) => {
      const form = req.form;
      if (!form || form.get("grant_type") !== "client_credentials") {
        throw new HttpError(
          400,
          "unsupported_grant_type: only client_credentials is supported",
          "InvalidRequest",
        );
      }
      const basic = basicCredentials(req);
      const id = basic?.id ?? form.get("client_id") ?? "";
      const secret = basic?.secret ?? form.get("client_secret") ?? "";
      if (!sameSecret(id, client.clientId) || !sameSecret(secret, client.clientSecret)) {
        return {
          status: 401,
          body: { error: "invalid_client", error_description: "unknown client or wrong secret" },
        };
      }
      const k = ctx.keys.tokens;
      const token = await new SignJWT({ scope: "management-api:read management-api:write", role: "admin" })
        .setProtectedHeader({ alg: k.alg, kid: k.kid, typ: "JWT" })
        .setIssuer(TOKEN_ISSUER)
        .setAudience(TOKEN_AUDIENCE)
        .setSubject(client.clientId)
        .setIssuedAt()
        .setExpirationTime(`${TOKEN_LIFETIME_SECONDS}s`)
        .sign(k.privateKey);
      return {
        body: {
          access_token: token,
          token_type: "Bearer",
          expires_in: TOKEN_LIFETIME_SECONDS,
          scope: "management-api:read management-api:write",
        },
      };
    },
    { authenticated: false },
  );
}

/**
 * Accepts a request carrying a valid access token of this dataspace's token endpoint. A token whose
 * signature was verified once is remembered until it expires (decision 0010).
 */
export function bearerAuthenticator(ctx: LocalContext) {
  const verified = new Map<string, number>();
  return async (req: LocalRequest): Promise<void> => {
    const h = String(req.headers.authorization ?? "");
    if (!h.startsWith("Bearer ")) throw unauthorized("a bearer token from /oauth2/token is required");
    const token = h.slice(7);
    const expiresAt = verified.get(token);
    if (expiresAt !== undefined && ctx.now() < expiresAt) return;
    try {
      const { payload } = await jwtVerify(token, ctx.keys.tokens.publicKey, {
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
      });
      if (typeof payload.exp === "number") {
        if (verified.size >= 100) verified.clear();
        verified.set(token, payload.exp * 1000);
      }
    } catch {
      verified.delete(token);
      throw unauthorized("invalid or expired bearer token");
    }
  };
}

/** the issuer's and the identity hub's administrator (IdentityHub 0.15.1 has one only when seeded) */
export const SUPER_USER = "super-user";
/** the APIs that take an `x-api-key` (IdentityHub's `identity` and `issueradmin` web contexts), not a token */
const API_KEY_PATHS = ["/issuer/", "/identity/"];

/**
 * The super-user's API key, made once and kept: `base64(participant context id).secret`, the form of
 * IdentityHub's keys (ParticipantServicePrincipalResolver reads the principal from its first part).
 */
export function loadOrCreateApiKey(ctx: LocalContext): string {
  let key = ctx.store.setting("super-user-api-key");
  if (!key) {
    key = `${Buffer.from(SUPER_USER).toString("base64")}.${randomBytes(64).toString("base64")}`;
    ctx.store.setSetting("super-user-api-key", key);
  }
  return key;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Accepts a request carrying `apiKey` in `x-api-key`, and refuses as IdentityHub 0.15.1 does
 * (ServicePrincipalAuthenticationFilter, ParticipantServicePrincipalResolver, EDC's exception mapper):
 * no key or more than one, 401 without a body; a key whose principal is not base64, 400 without a body;
 * a principal no participant context has, 401 "Invalid Authentication '…': An entity with ID '…' does not
 * exist."; any other wrong key, 401 "Invalid API token" (type AuthenticationFailed). A bearer token is no key.
 */
export function apiKeyAuthenticator(apiKey: string) {
  return async (req: LocalRequest): Promise<void> => {
    const sent = req.headers["x-api-key"];
    // Node joins repeated headers with ", " (no base64 key has a comma)
    if (typeof sent !== "string" || sent.includes(",")) throw new BareStatus(401, "Unauthorized");
    const parts = sent.split(".");
    const invalid = () => new HttpError(401, "Invalid API token", "AuthenticationFailed");
    if (parts.length !== 2) throw invalid();
    if (!BASE64.test(parts[0]) || parts[0].length % 4 === 1) throw new BareStatus(400, "Bad Request");
    const principal = Buffer.from(parts[0], "base64").toString("utf8");
    if (principal !== SUPER_USER)
      throw new HttpError(
        401,
        `Invalid Authentication '${principal}': An entity with ID '${principal}' does not exist.`,
        "AuthenticationFailed",
      );
    if (!sameSecret(sent, apiKey)) throw invalid();
  };
}

/** the local dataspace's authentication of a request: the API key where IdentityHub takes one, else the bearer token */
export function localAuthenticator(ctx: LocalContext, apiKey: string) {
  const bearer = bearerAuthenticator(ctx);
  const key = apiKeyAuthenticator(apiKey);
  return (req: LocalRequest) => (API_KEY_PATHS.some((p) => req.path.startsWith(p)) ? key(req) : bearer(req));
}
