import { randomBytes } from "node:crypto";
import { sameSecret } from "../config/same-secret";
import { jwtVerify, SignJWT } from "jose";
import type { LocalContext } from "./context";
import { HttpError, unauthorized, type LocalRequest, type Router } from "./http";

/**
 * OAuth2 client-credentials token endpoint of the local dataspace and the bearer check of its
 * management, tenant-manager, issuer and identity-hub APIs: the hub's clients authenticate the
 * same way against it as against a production connector behind Keycloak.
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
