import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { personaCards } from "../../lib/personas.server";
import { safeRedirect } from "../../../server/auth/safe-redirect";
import { getUser } from "../../session.server";
import { AppLink } from "../../components/ui/app-link";
import { PersonaPicker } from "../../components/ui/PersonaPicker";

export const meta: MetaFunction = () => [{ title: "Sign in · Health Dataspace Hub" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const returnTo = safeRedirect(url.searchParams.get("returnTo"), "/");
  if (await getUser(request, context)) throw redirect(returnTo);
  const embedded = !!context.services.embeddedIdp;
  return {
    returnTo,
    error: url.searchParams.get("error"),
    embedded,
    issuer: context.services.oidc.issuer,
    personas: embedded ? personaCards() : [],
  };
}

export default function SignIn() {
  const { returnTo, error, embedded, issuer, personas } = useLoaderData<typeof loader>();
  const login = (hint?: string) =>
    `/auth/login?${new URLSearchParams({ ...(hint ? { login_hint: hint } : {}), returnTo }).toString()}`;
  return (
    <section className="signin">
      <h1>Sign in</h1>
      <p className="lead">
        One sign-in for the European health data space: catalogue, knowledge graph, patient records, dataspace
        contracts and the access body&apos;s work.
      </p>
      {error ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : null}
      <p>
        <a className="button" href={login()}>
          Sign in with your organisation
        </a>{" "}
        <span className="muted">via {issuer}</span>
      </p>
      <p>
        <a
          className="button ghost"
          href={`/auth/wallet?${new URLSearchParams({ returnTo }).toString()}`}
          data-testid="signin-wallet"
        >
          Sign in with your EU Digital Identity Wallet
        </a>{" "}
        <span className="muted">
          patients: your wallet&apos;s name and date of birth are matched to your record
        </span>
      </p>
      {embedded ? (
        <>
          <h2>Demonstration accounts</h2>
          <p className="muted">
            The embedded development identity provider knows these personas. The password of each is its
            username.
          </p>
          <PersonaPicker personas={personas} hrefOf={login} showPassword />
        </>
      ) : null}
      <p className="muted">
        <AppLink to="/">Home</AppLink>
      </p>
    </section>
  );
}
