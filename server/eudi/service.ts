import { base64url } from "jose";
import type { AuditLog } from "../audit/log";
import type { Config } from "../config";
import type { GraphStore } from "../graph/store";
import { findPersonaByPatient, walletUser } from "./user";
import { readCookie, type SessionStore } from "../auth/sessions";
import type { SessionUser } from "../auth/user";
import { safeRedirect } from "../auth/safe-redirect";
import { ApiError, badRequest, notFound, serviceUnavailable } from "../http/errors";
import type { Db } from "../storage/database";
import { createDevWallet, type DevWallet } from "./dev-wallet";
import { createKeyStore } from "./keys";
import { matchPatient, PID_DCQL_QUERY, PID_PURPOSE, PID_QUERY_ID, PID_VCTS, pidFromClaims } from "./pid";
import { qrDataUrl } from "./qr";
import { createRemoteVerifier, type RemoteVerifier } from "./remote-verifier";
import { PresentationError, sha256b64u, verifySdJwtVcPresentation } from "./sd-jwt";
import { createEudiStore, type EudiRow } from "./store";
import { createIssuerTrust } from "./trust";

/**
 * EU Digital Identity Wallet sign-in (OpenID4VP, cross-device and same-device):
 *
 *  start   → a transaction with a fresh nonce and state; the wallet link (openid4vp://) points the
 *            wallet at the request object; the browser gets `sid` and an HttpOnly binding cookie.
 *  wallet  → fetches the request object (embedded verifier: /auth/wallet/request/{requestId}),
 *            answers by direct_post to /auth/wallet/response with a key-bound SD-JWT VC PID.
 *  verify  → issuer on the trusted list, signature, expiry, disclosures, key binding with this
 *            transaction's nonce and our client_id as audience; then the PID is matched to exactly
 *            one patient record (family name, given name, birth date), or refused.
 *  status  → pending | completed | expired | failed (+ reason). When completed, the browser that
 *            started the sign-in (same sid AND the binding cookie) receives the app session's
 *            Set-Cookie exactly once: the claim is an atomic UPDATE ... WHERE session_issued_at IS NULL.
 *            Anyone else who learns the sid (the wallet never sees it) gets no session.
 */

export const EUDI_BINDING_COOKIE = "app-auth.eudi-binding";
export const EUDI_TTL_MS = 5 * 60 * 1000;
/** how long after completion the starting browser may still collect its session */
export const EUDI_CLAIM_WINDOW_MS = 2 * 60 * 1000;
const PURGE_AFTER_MS = 24 * 60 * 60 * 1000;

export type EudiStatus = "pending" | "completed" | "expired" | "failed";

export interface StartResult {
  sid: string;
  status: "pending";
  walletLink: string;
  qr: string;
  expiresAt: string;
  verifier: "embedded" | "remote";
}

export interface StatusResult {
  sid: string;
  status: EudiStatus;
  reason?: string;
  expiresAt: string;
  /** completed only: issued (this response carries the Set-Cookie), already-issued, or not-this-browser */
  session?: "issued" | "already-issued" | "not-this-browser" | "claim-window-passed";
  redirectTo?: string;
  user?: { name: string; patientId: string };
}

export interface EudiDeps {
  db: Db;
  audit: AuditLog;
  graph: GraphStore;
  sessions: SessionStore;
  config: Config;
  runtime: { internalOrigin: string | undefined };
  fetchImpl?: typeof fetch;
}

const random = (bytes: number) => base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));

export function createEudiService(deps: EudiDeps) {
  const { db, audit, graph, sessions, config } = deps;
  const store = createEudiStore(db);
  const keys = createKeyStore(db);
  const publicUrl = config.publicUrl;
  const responseUri = `${publicUrl}/auth/wallet/response`;
  const embeddedClientId = `redirect_uri:${responseUri}`;
  const secure = publicUrl.startsWith("https:");
  const remote: RemoteVerifier | undefined = config.eudi.verifierUrl
    ? createRemoteVerifier(config.eudi.verifierUrl, config.upstreamTimeoutMs, deps.fetchImpl)
    : undefined;
  const devIssuerIss = `${publicUrl}/wallet/dev-pid-issuer`;
  const devIssuer = config.eudi.devWallet
    ? async () => {
        const k = await keys.get("dev-pid-issuer");
        return { iss: devIssuerIss, kid: k.kid, publicKey: k.publicKey, privateKey: k.privateKey };
      }
    : undefined;
  const trust = createIssuerTrust({
    dev: devIssuer,
    trustedIssuers: config.eudi.trustedIssuers,
    timeoutMs: config.upstreamTimeoutMs,
    fetchImpl: deps.fetchImpl,
  });
  const devWallet: DevWallet | undefined = devIssuer
    ? createDevWallet({
        keys,
        graph,
        issuer: devIssuer,
        publicUrl,
        runtime: deps.runtime,
        allowedOrigins: config.eudi.verifierUrl ? [config.eudi.verifierUrl] : [],
        fetchImpl: deps.fetchImpl,
      })
    : undefined;

  const bindingCookie = (value: string, maxAgeS: number) =>
    `${EUDI_BINDING_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}; Max-Age=${maxAgeS}`;

  function stateOf(row: EudiRow, now: number): EudiStatus {
    if (row.status === "completed") return "completed";
    if (row.status === "failed") return "failed";
    return now >= row.expires_at ? "expired" : "pending";
  }

  async function bindingMatches(request: Request, row: EudiRow): Promise<boolean> {
    const value = readCookie(request.headers.get("cookie"), EUDI_BINDING_COOKIE);
    if (!value) return false;
    const dot = value.indexOf(".");
    if (dot <= 0 || value.slice(0, dot) !== row.sid) return false;
    const given = await sha256b64u(value.slice(dot + 1));
    return timingSafeEqualText(given, row.binding_hash);
  }

  function extractPresentation(vpToken: unknown): string {
    let token: unknown = vpToken;
    if (typeof token === "string" && token.trim().startsWith("{")) {
      try {
        token = JSON.parse(token);
      } catch {
        throw new PresentationError("invalid_vp_token", "vp_token is not valid JSON");
      }
    }
    if (token && typeof token === "object" && !Array.isArray(token)) {
      const entry = (token as Record<string, unknown>)[PID_QUERY_ID];
      if (entry === undefined)
        throw new PresentationError(
          "invalid_vp_token",
          `vp_token has no presentation for the credential query "${PID_QUERY_ID}"`,
        );
      token = entry;
    }
    if (Array.isArray(token)) {
      if (token.length !== 1)
        throw new PresentationError("invalid_vp_token", "Exactly one PID presentation is expected");
      token = token[0];
    }
    if (typeof token !== "string" || !token)
      throw new PresentationError("invalid_vp_token", "vp_token holds no SD-JWT presentation");
    return token;
  }

  /** Verifies a wallet's vp_token for a transaction and completes or fails it. */
  async function settle(
    row: EudiRow,
    vpToken: unknown,
  ): Promise<{ ok: true } | { ok: false; invalid: boolean; reason: string }> {
    const now = Date.now();
    try {
      const presentation = extractPresentation(vpToken);
      const verified = await verifySdJwtVcPresentation(presentation, {
        resolveIssuerKey: trust.resolve,
        audience: row.client_id,
        nonce: row.nonce,
        expectedVct: PID_VCTS,
      });
      const pid = pidFromClaims(verified.claims);
      const match = await matchPatient(graph, pid);
      if (match.kind !== "match") {
        const reason =
          match.kind === "none"
            ? "No patient record matches the name and date of birth your wallet presented. Wallet sign-in works only for patients whose record is held here: sign in another way or ask your care provider."
            : "More than one patient record matches the name and date of birth your wallet presented, so we cannot tell which one is yours. Wallet sign-in is refused: please contact your care provider.";
        db.transaction(() => {
          if (store.fail(row.sid, reason, now)) {
            audit.append({
              action: "eudi.presentation",
              actor: "wallet",
              target: `eudi:${row.sid.slice(0, 8)}`,
              outcome: `refused: ${match.kind === "none" ? "no matching patient" : "ambiguous match"}`,
              kind: "eudi",
            });
          }
        })();
        return { ok: false, invalid: false, reason };
      }
      const user = walletUser(match.patient, pid, findPersonaByPatient(match.patient.id));
      db.transaction(() => {
        if (store.complete(row.sid, match.patient.id, JSON.stringify(user), now)) {
          audit.append({
            action: "eudi.presentation",
            actor: user.username,
            target: match.patient.id,
            outcome: `verified PID from ${verified.issuer}`,
            kind: "eudi",
          });
        }
      })();
      return { ok: true };
    } catch (e) {
      if (!(e instanceof PresentationError)) throw e;
      const reason = `Your wallet's presentation was refused: ${e.message}.`;
      db.transaction(() => {
        if (store.fail(row.sid, reason, now)) {
          audit.append({
            action: "eudi.presentation",
            actor: "wallet",
            target: `eudi:${row.sid.slice(0, 8)}`,
            outcome: `refused: ${e.code}`,
            kind: "eudi",
          });
        }
      })();
      return { ok: false, invalid: true, reason };
    }
  }

  async function pollRemote(row: EudiRow): Promise<EudiRow> {
    if (
      !remote ||
      row.mode !== "remote" ||
      row.status !== "pending" ||
      !row.transaction_id ||
      Date.now() >= row.expires_at
    )
      return row;
    let result;
    try {
      result = await remote.walletResponse(row.transaction_id);
    } catch {
      return row; // the verifier is unreachable: still pending; the next poll asks again
    }
    if (result.kind === "pending") return row;
    if (!store.markResponded(row.sid, Date.now())) return store.bySid(row.sid) ?? row;
    if (result.kind === "error") {
      db.transaction(() => {
        if (store.fail(row.sid, `Your wallet did not share the identity: ${result.error}`, Date.now())) {
          audit.append({
            action: "eudi.presentation",
            actor: "wallet",
            target: `eudi:${row.sid.slice(0, 8)}`,
            outcome: "declined",
            kind: "eudi",
          });
        }
      })();
    } else {
      await settle(row, result.vpToken);
    }
    return store.bySid(row.sid) ?? row;
  }

  async function publicView(row: EudiRow) {
    return {
      sid: row.sid,
      status: "pending" as const,
      walletLink: row.wallet_link,
      qr: await qrDataUrl(row.wallet_link),
      expiresAt: new Date(row.expires_at).toISOString(),
      verifier: row.mode,
    };
  }

  return {
    mode: remote ? ("remote" as const) : ("embedded" as const),
    devWallet,
    responseUri,
    trustedIssuers: () => trust.describe(),

    async start(input: { returnTo?: unknown } = {}): Promise<{ body: StartResult; setCookie: string }> {
      if (!devIssuer && config.eudi.trustedIssuers.length === 0) {
        throw serviceUnavailable(
          "Wallet sign-in is not configured: no trusted PID issuer (set EUDI_TRUSTED_ISSUERS)",
        );
      }
      const returnTo = safeRedirect(typeof input.returnTo === "string" ? input.returnTo : null, "/");
      const now = Date.now();
      const sid = random(24);
      const secret = random(32);
      const nonce = random(24);
      let requestId: string | null = null;
      let state: string | null = null;
      let clientId = embeddedClientId;
      let transactionId: string | null = null;
      let walletLink: string;
      if (remote) {
        let tx;
        try {
          tx = await remote.initiate({ nonce, dcqlQuery: PID_DCQL_QUERY });
        } catch (e) {
          throw new ApiError(502, "The wallet verifier could not start a presentation", (e as Error).message);
        }
        clientId = tx.clientId;
        transactionId = tx.transactionId;
        walletLink = tx.walletLink;
      } else {
        requestId = random(24);
        state = random(24);
        const link = new URLSearchParams({
          client_id: embeddedClientId,
          request_uri: `${publicUrl}/auth/wallet/request/${requestId}`,
        });
        walletLink = `openid4vp://?${link.toString()}`;
      }
      const row = {
        sid,
        binding_hash: await sha256b64u(secret),
        mode: remote ? ("remote" as const) : ("embedded" as const),
        request_id: requestId,
        state,
        nonce,
        client_id: clientId,
        transaction_id: transactionId,
        wallet_link: walletLink,
        return_to: returnTo,
        created_at: now,
        expires_at: now + EUDI_TTL_MS,
      };
      db.transaction(() => {
        store.purgeOlderThan(now - PURGE_AFTER_MS);
        store.insert(row);
        audit.append({
          action: "eudi.start",
          actor: "anonymous",
          target: `eudi:${sid.slice(0, 8)}`,
          kind: "eudi",
        });
      })();
      const body = await publicView({ ...row, status: "pending" } as EudiRow);
      return {
        body,
        setCookie: bindingCookie(`${sid}.${secret}`, Math.ceil((EUDI_TTL_MS + EUDI_CLAIM_WINDOW_MS) / 1000)),
      };
    },

    /** The pending sign-in this browser started (binding cookie), to show its QR code again after a reload. */
    async resume(request: Request): Promise<(StartResult & { returnTo: string }) | null> {
      const value = readCookie(request.headers.get("cookie"), EUDI_BINDING_COOKIE);
      const sid = value?.split(".")[0];
      if (!sid) return null;
      const row = store.bySid(sid);
      if (!row || stateOf(row, Date.now()) !== "pending" || !(await bindingMatches(request, row)))
        return null;
      return { ...(await publicView(row)), returnTo: row.return_to };
    },

    async status(
      sid: string | null,
      request: Request,
    ): Promise<{ body: StatusResult; setCookie?: string[] }> {
      if (!sid) throw badRequest("sid query parameter is required");
      let row = store.bySid(sid);
      if (!row) throw notFound("Unknown wallet sign-in (it may have been removed after a day)");
      row = await pollRemote(row);
      const now = Date.now();
      const status = stateOf(row, now);
      const body: StatusResult = { sid, status, expiresAt: new Date(row.expires_at).toISOString() };
      if (status === "failed") body.reason = row.reason ?? "The wallet sign-in failed";
      if (status === "expired")
        body.reason = "The wallet sign-in expired before your wallet answered. Start again.";
      if (status !== "completed") return { body };

      if (row.session_issued_at !== null) return { body: { ...body, session: "already-issued" } };
      if (!(await bindingMatches(request, row))) return { body: { ...body, session: "not-this-browser" } };
      if ((row.completed_at ?? 0) + EUDI_CLAIM_WINDOW_MS < now)
        return {
          body: {
            ...body,
            session: "claim-window-passed",
            reason: "The sign-in was not collected in time. Start again.",
          },
        };
      const user = JSON.parse(row.user_json ?? "null") as SessionUser | null;
      if (!user) throw new ApiError(500, "Wallet sign-in completed without a user");
      const finalRow = row;
      const issued = db.transaction(() => {
        if (!store.claim(finalRow.sid, now)) return null;
        const created = sessions.create(user, undefined);
        audit.append({
          action: "eudi.signin",
          actor: user.username,
          target: user.patientId ?? user.sub,
          kind: "session",
        });
        return created;
      })();
      if (!issued) return { body: { ...body, session: "already-issued" } };
      return {
        body: {
          ...body,
          session: "issued",
          redirectTo: row.return_to,
          user: { name: user.name, patientId: user.patientId ?? "" },
        },
        setCookie: [issued.setCookie, bindingCookie("", 0)],
      };
    },

    /** GET /auth/wallet/request/{requestId}: the request object (JAR, unsigned: client_id prefix redirect_uri). */
    async requestObject(requestId: string): Promise<Response> {
      const row = remote ? undefined : store.byRequestId(requestId);
      const now = Date.now();
      if (!row) return oauthError(404, "invalid_request", "Unknown authorization request");
      if (stateOf(row, now) !== "pending" || row.responded_at !== null)
        return oauthError(
          410,
          "invalid_request",
          "This authorization request has expired or was already answered",
        );
      store.markFetched(row.sid, now);
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
            "dc+sd-jwt": {
              "sd-jwt_alg_values": ["ES256", "ES384", "ES512"],
              "kb-jwt_alg_values": ["ES256", "ES384", "ES512"],
            },
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
      if (remote) return oauthError(404, "invalid_request", "This hub uses an external verifier");
      if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get("content-type") ?? "")) {
        return oauthError(400, "invalid_request", "direct_post must be application/x-www-form-urlencoded");
      }
      const text = await request.text();
      if (text.length > 256_000) return oauthError(413, "invalid_request", "The response is too large");
      const form = new URLSearchParams(text);
      const state = form.get("state");
      if (!state) return oauthError(400, "invalid_request", "state is required");
      const row = store.byState(state);
      if (!row)
        return oauthError(
          400,
          "invalid_request",
          "Unknown state: this is not an answer to one of our requests",
        );
      const now = Date.now();
      if (stateOf(row, now) === "expired")
        return oauthError(400, "invalid_request", "The authorization request has expired");
      if (!store.markResponded(row.sid, now))
        return oauthError(400, "invalid_request", "This authorization request was already answered");
      const walletError = form.get("error");
      if (walletError) {
        db.transaction(() => {
          if (
            store.fail(
              row.sid,
              `Your wallet did not share the identity (${form.get("error_description") ?? walletError}).`,
              now,
            )
          ) {
            audit.append({
              action: "eudi.presentation",
              actor: "wallet",
              target: `eudi:${row.sid.slice(0, 8)}`,
              outcome: "declined",
              kind: "eudi",
            });
          }
        })();
        return Response.json({}, { headers: { "Cache-Control": "no-store" } });
      }
      const result = await settle(row, form.get("vp_token"));
      if (!result.ok && result.invalid) return oauthError(400, "invalid_request", result.reason);
      // a valid presentation that matches no patient is still answered 200: the browser shows why
      return Response.json(
        { redirect_uri: `${publicUrl}/auth/wallet` },
        { headers: { "Cache-Control": "no-store" } },
      );
    },
  };
}
export type EudiService = ReturnType<typeof createEudiService>;

function oauthError(status: number, error: string, description: string): Response {
  return Response.json(
    { error, error_description: description },
    { status, headers: { "Cache-Control": "no-store" } },
  );
}

function timingSafeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
