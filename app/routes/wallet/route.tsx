import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { isWalletError } from "../../../server/eudi/dev-wallet";
import { isCivilDate } from "../../../server/http/contract-fields";
import { AppLink } from "../../components/ui/app-link";
import { readForm } from "../../lib/api-errors.server";

/**
 * The development wallet: stands in for a phone's EUDI wallet so that wallet sign-in runs here.
 * It reads an OpenID4VP request (the link behind the QR code), shows who asks for what, and on
 * "Share" presents a PID from the development issuer for the identity picked (see
 * server/eudi/dev-wallet.ts). Off in production: the page then answers 404.
 */

export const meta: MetaFunction = () => [{ title: "Development wallet · Health Dataspace Hub" }];

function walletOf(context: LoaderFunctionArgs["context"]) {
  const wallet = context.services.eudi.devWallet;
  if (!wallet)
    throw new Response("The development wallet is switched off (EUDI_DEV_WALLET=off).", {
      status: 404,
      statusText: "Not Found",
    });
  return wallet;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const wallet = walletOf(context);
  const link = new URL(request.url).searchParams.get("request") ?? "";
  const identities = await wallet.identities();
  if (!link) return { link, identities, request: null, error: null };
  try {
    return { link, identities, request: await wallet.inspect(link), error: null };
  } catch (e) {
    if (isWalletError(e)) return { link, identities, request: null, error: e.message };
    throw e;
  }
}

const refused = (error: string) => ({
  ok: false,
  status: 0,
  verifier: "",
  disclosed: [] as string[],
  error,
  declined: false,
  identity: null,
});

export async function action({ request, context }: ActionFunctionArgs) {
  const wallet = walletOf(context);
  const form = await readForm(request);
  const link = String(form.get("request") ?? "");
  const intent = String(form.get("intent") ?? "share");
  try {
    if (intent === "decline")
      return { ...(await wallet.decline(link)), declined: true, identity: null as string | null };
    const key = String(form.get("identity") ?? "");
    let identity = (await wallet.identities()).find((i) => i.key === key) ?? null;
    if (key === "custom") {
      const givenName = String(form.get("givenName") ?? "").trim();
      const familyName = String(form.get("familyName") ?? "").trim();
      const birthDate = String(form.get("birthDate") ?? "").trim();
      if (!givenName || !familyName || !isCivilDate(birthDate)) {
        return refused(
          "Enter a given name, a family name and a birth date that exists (YYYY-MM-DD) for the custom identity.",
        );
      }
      identity = { key, givenName, familyName, birthDate, note: "custom" };
    }
    if (!identity) return refused("Pick the identity to present.");
    const result = await wallet.present(link, identity);
    return { ...result, declined: false, identity: `${identity.givenName} ${identity.familyName}` };
  } catch (e) {
    if (isWalletError(e)) return refused(e.message);
    throw e;
  }
}

export default function DevWallet() {
  const { link, identities, request, error } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="dev-wallet">
      <div className="page-head">
        <div>
          <h1>Development wallet</h1>
          <p className="lead">
            Stands in for a phone&apos;s EU Digital Identity Wallet. Its person identification data (PID)
            comes from a development issuer that only a development hub trusts.
          </p>
        </div>
      </div>
      {result ? (
        result.ok ? (
          <div className="notice ok" role="status" data-testid="wallet-result">
            {result.declined ? (
              <p>You declined. The verifier was told.</p>
            ) : (
              <p>
                Shared {result.disclosed.join(", ")} of {result.identity} with {result.verifier}.
              </p>
            )}
            {"redirectUri" in result && result.redirectUri ? (
              <p>
                <a href={result.redirectUri} data-testid="wallet-return">
                  Return to the sign-in page
                </a>{" "}
                (or switch back to the tab you came from).
              </p>
            ) : null}
          </div>
        ) : (
          <p className="notice error" role="alert" data-testid="wallet-result-error">
            {"error" in result ? result.error : "The verifier refused the presentation."}
          </p>
        )
      ) : null}

      <Form method="get" className="card wallet-request-form">
        <label className="field">
          <span>Wallet link (the text behind the QR code)</span>
          <input
            name="request"
            defaultValue={link}
            placeholder="openid4vp://?client_id=...&request_uri=..."
            required
          />
        </label>
        <button type="submit" className="button ghost">
          Read request
        </button>
      </Form>

      {error && !result?.ok ? (
        <p className="notice error" role="alert" data-testid="wallet-request-error">
          {error}
        </p>
      ) : null}

      {request && !result?.ok ? (
        <Form method="post" className="card wallet-consent" data-testid="wallet-consent">
          <input type="hidden" name="request" value={link} />
          <h2>{request.clientName ?? "A verifier"} asks for your identity</h2>
          <p className="muted small">
            Verifier: <code>{request.clientId}</code>
          </p>
          {request.purpose ? <p>{request.purpose}.</p> : null}
          <p>
            It asks for: <strong>{request.claims.join(", ")}</strong>. Nothing else of your PID is disclosed.
          </p>
          <fieldset className="wallet-identities">
            <legend>Present the PID of</legend>
            {identities.map((i, n) => (
              <label key={i.key} className="wallet-identity">
                <input
                  type="radio"
                  name="identity"
                  value={i.key}
                  defaultChecked={n === 0}
                  data-testid={`wallet-identity-${i.key}`}
                />
                <span>
                  <strong>
                    {i.givenName} {i.familyName}
                  </strong>{" "}
                  born {i.birthDate} <span className="muted">({i.note})</span>
                </span>
              </label>
            ))}
            <label className="wallet-identity wallet-identity-custom">
              <input type="radio" name="identity" value="custom" />
              <span>Another person:</span>
              <input name="givenName" placeholder="Given name" aria-label="Given name" />
              <input name="familyName" placeholder="Family name" aria-label="Family name" />
              <input name="birthDate" placeholder="YYYY-MM-DD" aria-label="Birth date" />
            </label>
          </fieldset>
          <div className="actions">
            <button
              type="submit"
              name="intent"
              value="share"
              className="button"
              disabled={busy}
              data-testid="wallet-share"
            >
              Share
            </button>
            <button type="submit" name="intent" value="decline" className="button ghost" disabled={busy}>
              Decline
            </button>
          </div>
        </Form>
      ) : null}
      <p className="muted small">
        <AppLink to="/auth/wallet">Wallet sign-in</AppLink>
      </p>
    </section>
  );
}
