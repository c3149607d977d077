import { z } from "zod";
import { cappedJson } from "../http/limits";

/**
 * Client of an external OpenID4VP verifier endpoint with the API of the EUDI reference verifier
 * (eudi-srv-web-verifier-endpoint-23220-4-kt): `POST /ui/presentations` initialises a transaction,
 * `GET /ui/presentations/{transactionId}` returns the wallet's response once the wallet has posted it
 * (answers 4xx while there is none). The hub still verifies the returned vp_token itself (issuer
 * trust, nonce, audience = the verifier's client_id, key binding) before it signs anybody in.
 */

const initSchema = z.object({
  transaction_id: z.string().min(1),
  client_id: z.string().min(1),
  request_uri: z.url().optional(),
  request: z.string().optional(),
});
const walletResponseSchema = z
  .object({
    vp_token: z.unknown().optional(),
    error: z.string().optional(),
    error_description: z.string().optional(),
  })
  .passthrough();

export type RemoteResult =
  { kind: "pending" } | { kind: "response"; vpToken: unknown } | { kind: "error"; error: string };

export function createRemoteVerifier(baseUrl: string, timeoutMs: number) {
  return {
    async initiate(input: { nonce: string; dcqlQuery: unknown }) {
      const res = await fetch(`${baseUrl}/ui/presentations`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({
          type: "vp_token",
          dcql_query: input.dcqlQuery,
          nonce: input.nonce,
          response_mode: "direct_post",
          jar_mode: "by_reference",
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) throw new Error(`the verifier answered ${res.status}`);
      const body = initSchema.parse(await cappedJson(res));
      const link = new URLSearchParams({ client_id: body.client_id });
      if (body.request_uri) link.set("request_uri", body.request_uri);
      else if (body.request) link.set("request", body.request);
      else throw new Error("the verifier returned neither request_uri nor request");
      return {
        transactionId: body.transaction_id,
        clientId: body.client_id,
        walletLink: `openid4vp://?${link.toString()}`,
      };
    },
    async walletResponse(transactionId: string): Promise<RemoteResult> {
      const res = await fetch(`${baseUrl}/ui/presentations/${encodeURIComponent(transactionId)}`, {
        headers: { Accept: "application/json" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status >= 400 && res.status < 500) return { kind: "pending" };
      if (!res.ok) throw new Error(`the verifier answered ${res.status}`);
      const body = walletResponseSchema.parse(await cappedJson(res));
      if (body.error) return { kind: "error", error: body.error_description ?? body.error };
      if (body.vp_token === undefined) return { kind: "pending" };
      return { kind: "response", vpToken: body.vp_token };
    },
  };
}
export type RemoteVerifier = ReturnType<typeof createRemoteVerifier>;
