import { readCookie, type SessionRequest } from "../auth/sessions";
import { sameSecret } from "../config/same-secret";
import type { SessionUser } from "../auth/user";
import { safeRedirect } from "../auth/safe-redirect";
import { ApiError, badRequest, notFound, serviceUnavailable } from "../http/errors";
import type { EudiContext } from "./context";
import { PID_DCQL_QUERY } from "./pid";
import { qrDataUrl } from "./qr";
import { random, sha256b64u } from "./sd-jwt";
import type { EudiRow } from "./store";
import {
  EUDI_BINDING_COOKIE,
  EUDI_CLAIM_WINDOW_MS,
  EUDI_TTL_MS,
  PURGE_AFTER_MS,
  stateOf,
  type StartResult,
  type StatusResult,
} from "./transaction";
import type { createPresentationCheck } from "./verification";

/** what the flow reads of a request: its headers (the binding cookie) */
type WithHeaders = { headers: { get(name: string): string | null } };

/**
 * The browser's side of a wallet sign-in: start (wallet link, QR code, binding cookie), resume
 * after a reload, and status, which hands the app session to the starting browser exactly once.
 * With an external verifier the status poll also asks it for the wallet's answer.
 */
export function createBrowserFlow(
  ctx: EudiContext,
  check: ReturnType<typeof createPresentationCheck>,
  opts: { devIssuer: boolean },
) {
  const { rel, audit, sessions, config } = ctx.deps;
  const { store, publicUrl, embeddedClientId, remote } = ctx;
  const { settle, refuse } = check;
  const secure = publicUrl.startsWith("https:");

  const bindingCookie = (value: string, maxAgeS: number) =>
    `${EUDI_BINDING_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}; Max-Age=${maxAgeS}`;

  async function bindingMatches(request: WithHeaders, row: EudiRow): Promise<boolean> {
    const value = readCookie(request.headers.get("cookie"), EUDI_BINDING_COOKIE);
    if (!value) return false;
    const dot = value.indexOf(".");
    if (dot <= 0 || value.slice(0, dot) !== row.sid) return false;
    const given = await sha256b64u(value.slice(dot + 1));
    return sameSecret(given, row.binding_hash);
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
    if (!(await store.markResponded(row.sid, Date.now()))) return (await store.bySid(row.sid)) ?? row;
    if (result.kind === "error") {
      const reason = `Your wallet did not share the identity: ${result.error}`;
      await refuse(row, reason, "declined", Date.now());
    } else {
      await settle(row, result.vpToken);
    }
    return (await store.bySid(row.sid)) ?? row;
  }

  async function publicView(row: Pick<EudiRow, "sid" | "wallet_link" | "expires_at" | "mode">) {
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
    async start(input: { returnTo?: unknown } = {}): Promise<{ body: StartResult; setCookie: string }> {
      if (!opts.devIssuer && config.eudi.trustedIssuers.length === 0) {
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
      await rel.tx(async (tx) => {
        await store.purgeOlderThan(now - PURGE_AFTER_MS, tx);
        await store.insert(row, tx);
        await audit.append(
          { action: "eudi.start", actor: "anonymous", target: `eudi:${sid.slice(0, 8)}`, kind: "eudi" },
          { tx },
        );
      });
      const body = await publicView(row);
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
      const row = await store.bySid(sid);
      if (!row || stateOf(row, Date.now()) !== "pending" || !(await bindingMatches(request, row)))
        return null;
      return { ...(await publicView(row)), returnTo: row.return_to };
    },

    async status(
      sid: string | null,
      request: SessionRequest,
    ): Promise<{ body: StatusResult; setCookie?: string[] }> {
      if (!sid) throw badRequest("sid query parameter is required");
      const found = await store.bySid(sid);
      if (!found) throw notFound("Unknown wallet sign-in (it may have been removed after a day)");
      const row = await pollRemote(found);
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
      const issued = await rel.tx(async (tx) => {
        if (!(await store.claim(row.sid, now, tx))) return null;
        const created = await sessions.create(user, undefined, { tx });
        await audit.append(
          {
            action: "eudi.signin",
            actor: user.username,
            target: user.patientId ?? user.sub,
            kind: "session",
          },
          { tx },
        );
        return created;
      });
      if (!issued) return { body: { ...body, session: "already-issued" } };
      // a session this browser still holds ends here: the sign-in replaces it, on the server too
      await sessions.destroy(request);
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
  };
}
