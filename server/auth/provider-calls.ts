import { OAuth2Tokens } from "arctic";
import { errors as joseErrors, type JWTVerifyGetKey } from "jose";
import { cappedJson } from "../http/limits";
import type { ProviderVerdict } from "./sessions";

/**
 * The calls the sign-in makes to the identity provider, each bounded by a deadline (an AbortSignal,
 * `AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)` per sign-in step): the token request, the signing keys
 * and the wait for discovery. A provider that is unreachable, slow, answers 5xx, not JSON or cuts
 * the body gives ProviderUnavailableError, which the sign-in shows as "try again in a moment";
 * a provider that answers and refuses (bad code, wrong key) gives an ordinary error. Every answer is
 * read no further than UPSTREAM_MAX_BYTES (`cappedText`): a provider cannot fill the heap.
 */

export class ProviderUnavailableError extends Error {
  override name = "ProviderUnavailableError";
}

/** `e`, a failed call to the provider, as ProviderUnavailableError naming the call */
export function providerUnavailable(what: string, e: unknown): ProviderUnavailableError {
  if (e instanceof ProviderUnavailableError) return e;
  const reason =
    e instanceof Error
      ? e.name === "TimeoutError" || e.name === "AbortError"
        ? "no answer within the time-out"
        : `${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}`
      : String(e);
  return new ProviderUnavailableError(`${what}: ${reason}`);
}

/** `work`, or ProviderUnavailableError as soon as `deadline` aborts (the work itself is bounded elsewhere) */
export function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal, what: string): Promise<T> {
  const late = () => new ProviderUnavailableError(`${what}: no answer within the time-out`);
  if (deadline.aborted) return Promise.reject(late());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(late());
    deadline.addEventListener("abort", onAbort, { once: true });
    void work.then(resolve, reject).finally(() => deadline.removeEventListener("abort", onAbort));
  });
}

export interface TokenClient {
  clientId: string;
  clientSecret: string;
  redirectURI: string;
}

/**
 * The authorization-code token request (RFC 6749 §4.1.3 with the PKCE verifier), as arctic's
 * `OAuth2Client.validateAuthorizationCode` sends it (client_secret_basic), but with the deadline as
 * its signal: arctic's own request has none, so a provider that accepts and never answers held the
 * callback open. The signal also covers reading the body.
 */
export async function requestTokens(
  tokenEndpoint: string,
  client: TokenClient,
  grant: { code: string; codeVerifier: string },
  deadline: AbortSignal,
): Promise<OAuth2Tokens> {
  const answer = await tokenEndpointCall(
    tokenEndpoint,
    client,
    new URLSearchParams({
      grant_type: "authorization_code",
      code: grant.code,
      redirect_uri: client.redirectURI,
      code_verifier: grant.codeVerifier,
    }),
    deadline,
  );
  if (answer.status !== 200) throw new Error(`token request refused (${answer.status}): ${answer.error}`);
  return new OAuth2Tokens(answer.data);
}

/**
 * The refresh-token grant (RFC 6749 §6) by which the hub re-checks a provider session: 200 means the
 * session at the provider is still active (Keycloak also counts it as activity of that session);
 * `invalid_grant` means the token or its session is gone (revoked, signed out, expired). Anything
 * else (unreachable, slow, 5xx, not JSON, another refusal such as a wrong client secret) says
 * nothing of the session: ProviderUnavailableError.
 */
export async function refreshSession(
  tokenEndpoint: string,
  client: Omit<TokenClient, "redirectURI">,
  refreshToken: string,
  deadline: AbortSignal,
): Promise<Exclude<ProviderVerdict, { state: "unreachable" }>> {
  const answer = await tokenEndpointCall(
    tokenEndpoint,
    client,
    new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }),
    deadline,
  );
  if (answer.status === 200) {
    const next = answer.data.refresh_token;
    const idToken = answer.data.id_token;
    return {
      state: "active",
      ...(typeof next === "string" && next ? { refreshToken: next } : {}),
      ...(typeof idToken === "string" && idToken ? { idToken } : {}),
    };
  }
  if (answer.data.error === "invalid_grant") return { state: "ended", reason: answer.error };
  throw new ProviderUnavailableError(`refresh refused (${answer.status}): ${answer.error}`);
}

/**
 * Token revocation (RFC 7009) of the session's refresh token at sign-out, so the provider's session
 * ends on the server even when the browser does not follow the end-session redirect (Keycloak ends
 * the user session whose refresh token is revoked). 200 is done; anything else is
 * ProviderUnavailableError, which the sign-out logs and passes over.
 */
export async function revokeRefreshToken(
  revocationEndpoint: string,
  client: Omit<TokenClient, "redirectURI">,
  refreshToken: string,
  deadline: AbortSignal,
): Promise<void> {
  let status: number;
  try {
    const res = await clientPost(
      revocationEndpoint,
      client,
      new URLSearchParams({ token: refreshToken, token_type_hint: "refresh_token" }),
      deadline,
    );
    status = res.status;
    await res.body?.cancel();
  } catch (e) {
    throw providerUnavailable("token revocation", e);
  }
  if (status !== 200) throw new ProviderUnavailableError(`token revocation answered ${status}`);
}

/** a form POST authenticated with client_secret_basic, bounded by `deadline` */
function clientPost(
  endpoint: string,
  client: Omit<TokenClient, "redirectURI">,
  body: URLSearchParams,
  deadline: AbortSignal,
): Promise<Response> {
  const credentials = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64");
  return fetch(endpoint, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
      Authorization: `Basic ${credentials}`,
    },
    body,
    signal: deadline,
  });
}

/**
 * One POST to the token endpoint with client_secret_basic, bounded by `deadline` (reading the body
 * included): 200 with a JSON object, or a 400/401 refusal with its error; anything else is
 * ProviderUnavailableError.
 */
async function tokenEndpointCall(
  tokenEndpoint: string,
  client: Omit<TokenClient, "redirectURI">,
  body: URLSearchParams,
  deadline: AbortSignal,
): Promise<{ status: number; data: Record<string, unknown>; error: string }> {
  let data: unknown;
  let status: number;
  try {
    const res = await clientPost(tokenEndpoint, client, body, deadline);
    status = res.status;
    if (status !== 200 && status !== 400 && status !== 401) {
      await res.body?.cancel();
      throw new ProviderUnavailableError(`token endpoint answered ${status}`);
    }
    data = await cappedJson(res);
  } catch (e) {
    throw providerUnavailable("token request", e);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ProviderUnavailableError(`token endpoint answered ${status} without a JSON object`);
  }
  const { error, error_description } = data as { error?: unknown; error_description?: unknown };
  return {
    status,
    data: data as Record<string, unknown>,
    error: `${String(error ?? "no error code")}${typeof error_description === "string" ? ` – ${error_description}` : ""}`,
  };
}

/**
 * The signing keys (jose's remote key set, fetched with its own time-out) within the deadline; a key
 * set that cannot be fetched or read is the provider's fault, a token signed with a key it does not
 * hold is a refusal.
 */
export function keysBeforeDeadline(keys: JWTVerifyGetKey, deadline: AbortSignal): JWTVerifyGetKey {
  return (header, token) =>
    beforeDeadline(
      Promise.resolve()
        .then(() => keys(header, token))
        .catch((e: unknown) => {
          if (e instanceof joseErrors.JWKSNoMatchingKey || e instanceof joseErrors.JWKSMultipleMatchingKeys)
            throw e;
          throw providerUnavailable("signing keys (JWKS)", e);
        }),
      deadline,
      "signing keys (JWKS)",
    );
}
