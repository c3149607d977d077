import { base64url } from "jose";
import type { EudiContext } from "./context";
import { PID_DCQL_QUERY, PID_PURPOSE } from "./pid";
import { SD_ALGS } from "./sd-jwt";
import { stateOf } from "./transaction";
import type { createPresentationCheck } from "./verification";

/**
 * The embedded verifier's OpenID4VP endpoints the wallet calls: the request object and the
 * direct_post response. Errors are OAuth error objects; with an external verifier both answer 404.
 */
export function createWalletEndpoints(ctx: EudiContext, check: ReturnType<typeof createPresentationCheck>) {
  const { store, publicUrl, responseUri, embeddedClientId, remote } = ctx;
  const { settle, refuse } = check;

  return {
    /** GET /auth/wallet/request/{requestId}: the request object (JAR, unsigned: client_id prefix redirect_uri). */
    async requestObject(requestId: string): Promise<Response> {
      const row = remote ? undefined : await store.byRequestId(requestId);
      const now = Date.now();
      if (!row) return oauthError(404, "Unknown authorization request");
      if (stateOf(row, now) !== "pending" || row.responded_at !== null)
        return oauthError(410, "This authorization request has expired or was already answered");
      await store.markFetched(row.sid, now);
      const payload = {
        response_type: "vp_token",
        response_mode: "direct_post",
        client_id: embeddedClientId,
        response_uri: responseUri,
        nonce: row.nonce,
        state: row.state,
        dcql_query: PID_DCQL_QUERY,
        client_metadata: {
          client_name: "Health Dataspace Hub",
          purpose: PID_PURPOSE,
          vp_formats_supported: {
            "dc+sd-jwt": { "sd-jwt_alg_values": SD_ALGS, "kb-jwt_alg_values": SD_ALGS },
          },
        },
        aud: "https://self-issued.me/v2",
        iat: Math.floor(now / 1000),
        exp: Math.floor(row.expires_at / 1000),
      };
      const enc = (v: unknown) => base64url.encode(JSON.stringify(v));
      const jwt = `${enc({ alg: "none", typ: "oauth-authz-req+jwt" })}.${enc(payload)}.`;
      return new Response(jwt, {
        status: 200,
        headers: { "Content-Type": "application/oauth-authz-req+jwt", "Cache-Control": "no-store" },
      });
    },

    /** POST /auth/wallet/response: the wallet's direct_post (application/x-www-form-urlencoded). */
    async directPost(request: Request): Promise<Response> {
      if (remote) return oauthError(404, "This hub uses an external verifier");
      if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get("content-type") ?? "")) {
        return oauthError(400, "direct_post must be application/x-www-form-urlencoded");
      }
      const text = await request.text();
      if (text.length > 256_000) return oauthError(413, "The response is too large");
      const form = new URLSearchParams(text);
      const state = form.get("state");
      if (!state) return oauthError(400, "state is required");
      const row = await store.byState(state);
      if (!row) return oauthError(400, "Unknown state: this is not an answer to one of our requests");
      const now = Date.now();
      if (stateOf(row, now) === "expired") return oauthError(400, "The authorization request has expired");
      if (!(await store.markResponded(row.sid, now)))
        return oauthError(400, "This authorization request was already answered");
      const walletError = form.get("error");
      if (walletError) {
        const reason = `Your wallet did not share the identity (${form.get("error_description") ?? walletError}).`;
        await refuse(row, reason, "declined", now);
        return noStore({});
      }
      const result = await settle(row, form.get("vp_token"));
      if (!result.ok && result.invalid) return oauthError(400, result.reason);
      // a valid presentation that matches no patient is still answered 200: the browser shows why
      return noStore({ redirect_uri: `${publicUrl}/auth/wallet` });
    },
  };
}

const noStore = (body: unknown, status = 200) =>
  Response.json(body, { status, headers: { "Cache-Control": "no-store" } });

/** an OAuth error object: every refusal of these endpoints is an `invalid_request` */
const oauthError = (status: number, description: string) =>
  noStore({ error: "invalid_request", error_description: description }, status);
