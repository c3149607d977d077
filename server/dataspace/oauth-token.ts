import { z } from "zod";
import { createUpstreamHttp, UpstreamError, type TokenSource } from "./upstream-http";

/**
 * OAuth2 client-credentials grant (RFC 6749 §4.4) for the management APIs: the token is cached
 * until shortly before it expires, concurrent callers share one token request, and a failed token
 * call is an UpstreamError("token") — the caller never falls back to an unauthenticated request.
 */

/**
 * The scopes the hub's management token asks for: the participant-scoped connector checks
 * `management-api:read`/`write` on every call (`@RequiredScope`), its identity hub and issuer their own.
 */
export const MANAGEMENT_TOKEN_SCOPE =
  "management-api:read management-api:write identity-api:read identity-api:write issuer-admin-api:read issuer-admin-api:write";

const tokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional(),
});

export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** a cached token is renewed this long before it expires (at most half its lifetime) */
const RENEW_MS = 30_000;

const noToken = (why: string, status?: number, options?: { cause: unknown }) =>
  new UpstreamError("token endpoint", "token", `no access token: ${why}`, status, options);

export function createClientCredentialsSource(options: ClientCredentials): TokenSource {
  const { origin, pathname, search } = new URL(options.tokenUrl);
  const { timeoutMs, fetch } = options;
  const http = createUpstreamHttp({ name: "token endpoint", baseUrl: origin, timeoutMs, fetch });
  let cached: { token: string; expiresAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  async function fetchToken(signal?: AbortSignal): Promise<string> {
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: options.clientId,
      client_secret: options.clientSecret,
    });
    if (options.scope) body.set("scope", options.scope);
    let answer: unknown;
    try {
      answer = await http.request("POST", pathname + search, { body, schema: z.unknown(), signal });
    } catch (e) {
      const { failure, status, message } = e as UpstreamError;
      // the status alone, not the token endpoint's words
      if (failure === "status") throw noToken(`token endpoint answered HTTP ${status}`, status);
      throw noToken(message, undefined, { cause: e });
    }
    // an empty body: JSON.parse would have refused it
    if (answer === undefined) throw noToken("token endpoint answered with malformed JSON");
    const parsed = tokenResponse.safeParse(answer);
    if (!parsed.success) throw noToken("token endpoint answered without access_token");
    const lifetimeMs = (parsed.data.expires_in ?? 300) * 1000;
    cached = {
      token: parsed.data.access_token,
      expiresAt: Date.now() + lifetimeMs - Math.min(RENEW_MS, lifetimeMs / 2),
    };
    return parsed.data.access_token;
  }

  return {
    async token(signal) {
      if (cached && Date.now() < cached.expiresAt) return cached.token;
      inFlight ??= fetchToken(signal).finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}

/** the management token source of a connector's client credentials; none without a token endpoint */
export function managementTokens(
  c: { tokenUrl?: string; clientId?: string; clientSecret?: string },
  timeoutMs: number,
  fetch?: typeof globalThis.fetch,
): TokenSource | undefined {
  if (!c.tokenUrl) return undefined;
  const { tokenUrl, clientId = "", clientSecret = "" } = c;
  const scope = MANAGEMENT_TOKEN_SCOPE;
  return createClientCredentialsSource({ tokenUrl, clientId, clientSecret, scope, timeoutMs, fetch });
}
