import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { safeRedirect } from "../../../server/auth/safe-redirect";
import { isApiError } from "../../lib/api-errors.server";
import { PID_PURPOSE } from "../../../server/eudi/pid";
import type { StatusResult } from "../../../server/eudi/service";
import { usePolling } from "../../components/patient-app/usePolling";
import { getUser } from "../../session.server";
import { AppLink } from "../../components/ui/app-link";

/**
 * Wallet sign-in: shows the OpenID4VP request as a QR code (and as a link for a wallet on this
 * device) and follows the sign-in live through /auth/wallet/status. The page resumes the sign-in
 * this browser started (binding cookie) after a reload; `?restart=1` starts a new one.
 */

export const meta: MetaFunction = () => [
  { title: "Sign in with your EU Digital Identity Wallet · Health Dataspace Hub" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const eudi = context.services.eudi;
  const returnToParam = url.searchParams.get("returnTo");
  if (await getUser(request, context)) throw redirect(safeRedirect(returnToParam, "/"));
  const view = <R extends { walletLink: string }>(request: R, returnTo: string) => ({
    ok: true as const,
    request,
    returnTo,
    purpose: PID_PURPOSE,
    devWalletUrl: eudi.devWallet ? eudi.devWallet.pageFor(request.walletLink) : null,
  });
  try {
    const resumed = url.searchParams.get("restart") ? null : await eudi.resume(request);
    if (resumed) return view(resumed, resumed.returnTo);
    const returnTo = safeRedirect(returnToParam, "/");
    const started = await eudi.start({ returnTo });
    return data(view(started.body, returnTo), { headers: { "Set-Cookie": started.setCookie } });
  } catch (e) {
    if (isApiError(e) && e.status < 500) return { ok: false as const, error: e.message };
    if (isApiError(e))
      return { ok: false as const, error: `${e.message}${e.detail ? ` (${e.detail})` : ""}` };
    throw e;
  }
}

function secondsLeft(expiresAt: string, now: number) {
  return Math.max(0, Math.round((Date.parse(expiresAt) - now) / 1000));
}

export default function WalletSignIn() {
  const loaded = useLoaderData<typeof loader>();
  const fetcher = useFetcher<StatusResult | { error: string }>();
  const [now, setNow] = useState<number | null>(null);
  const status = fetcher.data && "status" in fetcher.data ? fetcher.data : null;
  const pollError = fetcher.data && "error" in fetcher.data ? fetcher.data.error : null;
  const sid = loaded.ok ? loaded.request.sid : null;
  const finished = status !== null && status.status !== "pending";

  usePolling(
    () => {
      setNow(Date.now());
      if (sid && fetcher.state === "idle") fetcher.load(`/auth/wallet/status?sid=${encodeURIComponent(sid)}`);
    },
    1500,
    !!sid && !finished,
  );
  useEffect(() => {
    if (status?.status === "completed" && status.session === "issued") {
      // a full page load, so the whole layout picks up the new session
      window.location.assign(status.redirectTo ?? "/");
    }
  }, [status]);

  if (!loaded.ok) {
    return (
      <section className="signin wallet-signin">
        <h1>Sign in with your EU Digital Identity Wallet</h1>
        <p className="notice error" role="alert" data-testid="wallet-error">
          {loaded.error}
        </p>
        <p>
          <AppLink to="/auth/signin">Other ways to sign in</AppLink>
        </p>
      </section>
    );
  }
  const req = loaded.request;
  const state = status?.status ?? "pending";
  const left = now === null ? null : secondsLeft(req.expiresAt, now);
  return (
    <section className="signin wallet-signin">
      <h1>Sign in with your EU Digital Identity Wallet</h1>
      <p className="lead">
        {loaded.purpose}. Nothing else is asked for, and nothing is shared without your consent in the wallet.
      </p>
      <div className="wallet-grid">
        <figure className="card wallet-qr">
          <img
            src={req.qr}
            alt="QR code of the sign-in request: scan it with your EUDI wallet"
            width={240}
            height={240}
            data-testid="wallet-qr"
          />
          <figcaption className="muted small">
            Scan with your wallet app. The request asks for: given name, family name, date of birth.
          </figcaption>
        </figure>
        <div className="wallet-steps">
          <div
            className={`wallet-status wallet-status-${state}`}
            role="status"
            aria-live="polite"
            data-testid="wallet-status"
            data-state={state}
          >
            {state === "pending" ? (
              <>
                <strong>Waiting for your wallet…</strong>
                <span className="muted">
                  {left === null
                    ? "The request is valid for 5 minutes."
                    : `The request expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}.`}
                </span>
              </>
            ) : null}
            {state === "completed" ? (
              <>
                <strong>Identity verified.</strong>
                <span>
                  {status?.session === "issued"
                    ? `Signing you in as ${status.user?.name ?? "yourself"}…`
                    : status?.session === "already-issued"
                      ? "This sign-in has already been used."
                      : (status?.reason ?? "This sign-in was completed in another browser.")}
                </span>
              </>
            ) : null}
            {state === "failed" || state === "expired" ? (
              <>
                <strong>{state === "failed" ? "Sign-in refused" : "Sign-in expired"}</strong>
                <span data-testid="wallet-reason">{status?.reason}</span>
              </>
            ) : null}
            {pollError ? <span className="notice error">{pollError}</span> : null}
          </div>
          <ol className="wallet-how">
            <li>Open your EU Digital Identity Wallet and scan the code, or use the button on a phone.</li>
            <li>Check that the Health Dataspace Hub asks only for your name and date of birth, and agree.</li>
            <li>This page signs you in as soon as your wallet has answered.</li>
          </ol>
          <div className="actions">
            <a className="button" href={req.walletLink} data-testid="wallet-link">
              Open in my wallet app
            </a>
            {loaded.devWalletUrl ? (
              <a
                className="button ghost"
                href={loaded.devWalletUrl}
                target="_blank"
                rel="noopener"
                data-testid="dev-wallet-link"
              >
                Open the development wallet
              </a>
            ) : null}
            {finished ? (
              <a
                className="button ghost"
                href={`/auth/wallet?${new URLSearchParams({ restart: "1", returnTo: loaded.returnTo }).toString()}`}
                data-testid="wallet-restart"
              >
                Start again
              </a>
            ) : null}
          </div>
          <p className="muted small">
            <AppLink to="/auth/signin">Other ways to sign in</AppLink>
          </p>
        </div>
      </div>
    </section>
  );
}
